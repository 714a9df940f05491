/**
 * The pseudonym vault: keyed HMAC-SHA256 tokens of the documented shapes
 * (format-preserving ARNs, same-length account ids, private IPs permuted
 * inside their block with prefixes preserved, public IPs in benchmark and
 * documentation ranges, `user-…@d-….example` e-mail addresses, tokenised
 * host names), remembered so each token reverses to its original on input.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import ipaddr from "ipaddr.js";
import { ipClass, privateBlock } from "./detectors.ts";

/** Where the vault key came from. */
export type VaultKeySource = "policy" | "environment" | "random";

/** The vault's settings. */
export interface VaultOptions {
  /** The secret key (any text); random per process when left out. */
  key?: string;
  /** Where the key came from. @default "random" when no key, else "policy" */
  keySource?: VaultKeySource;
}

const AWS_ID = /^([a-z]{1,12})-([0-9a-f]{8,17})$/;

/** A keyed, reversible token store. */
export class PseudonymVault {
  readonly #tokenize: Buffer;
  readonly #hash: Buffer;
  readonly #forward = new Map<string, string>();
  readonly #reverse = new Map<string, { value: string; entity: string }>();
  readonly #bitCache = new Map<string, number>();
  readonly #fileKey: Buffer;
  #issued = 0;
  /** Called after a new token was issued (for autosave). */
  onIssue: (() => void) | null = null;
  /** Where the key came from. */
  readonly keySource: VaultKeySource;
  /** A 12-hex id of the key (safe to show). */
  readonly keyId: string;

  /** A vault keyed with `options.key` (or a random key). */
  constructor(options: VaultOptions = {}) {
    const master = options.key !== undefined ? Buffer.from(options.key) : randomBytes(32);
    this.keySource = options.key === undefined ? "random" : options.keySource ?? "policy";
    const sub = (label: string): Buffer => createHmac("sha256", master).update(label).digest();
    this.#tokenize = sub("tokenize");
    this.#hash = sub("hash");
    this.#fileKey = sub("file-encryption");
    this.keyId = sub("key-id").toString("hex").slice(0, 12);
  }

  /** How many tokens were issued. */
  get size(): number {
    return this.#reverse.size;
  }

  /** Forgets every token (a cold vault). */
  clear(): void {
    this.#forward.clear();
    this.#reverse.clear();
    this.#bitCache.clear();
  }

  /** A keyed hash (`<entity>:<12 hex>` for the hash strategy, or plain hex). */
  hash(entity: string, value: string, length = 12): string {
    return createHmac("sha256", this.#hash).update(`${entity}\x1f${value}`).digest("hex").slice(
      0,
      Math.max(4, length),
    );
  }

  #digest(entity: string, value: string, attempt: number): Buffer {
    return createHmac("sha256", this.#tokenize).update(`global|${entity}|${attempt}|${value}`)
      .digest();
  }

  /** The pseudonym of `value` as `entity`; the same value always gets the same token. */
  token(entity: string, value: string): string {
    if (value === "" || value === "*" || value.startsWith("$")) return value;
    const key = `${entity}\x1f${value}`;
    const known = this.#forward.get(key);
    if (known !== undefined) return known;
    // A value that already is a token of this vault stays as it is.
    if (this.#reverse.has(value)) return value;
    let token = value;
    for (let attempt = 0; attempt < 64; attempt++) {
      token = attempt < 48
        ? this.#shape(entity, value, attempt)
        : `${genericPrefix(entity)}-${
          this.#digest(entity, value, attempt).toString("hex").slice(0, 10)
        }`;
      const clash = this.#reverse.get(token);
      if (token === value || clash === undefined || clash.value === value) break;
    }
    if (token !== value) {
      this.#forward.set(key, token);
      this.#reverse.set(token, { value, entity });
      this.#issued++;
      this.onIssue?.();
    }
    return token;
  }

  /** Tokens issued since the vault was made (a save compares it with what it wrote). */
  get issued(): number {
    return this.#issued;
  }

  /** Every token with its original and entity, in issue order. */
  entries(): [token: string, value: string, entity: string][] {
    return [...this.#reverse].map(([token, { value, entity }]) => [token, value, entity]);
  }

  /**
   * Takes back tokens saved earlier under the same key. A token that clashes
   * with one already issued for another value is refused.
   */
  restore(entries: readonly (readonly [string, string, string])[]): void {
    for (const [token, value, entity] of entries) {
      const known = this.#reverse.get(token);
      if (known && (known.value !== value || known.entity !== entity)) {
        throw new Error(`token ${token} is already issued for another value`);
      }
      this.#forward.set(`${entity}\x1f${value}`, token);
      this.#reverse.set(token, { value, entity });
    }
  }

  /** Encrypts `plain` with this key's file sub-key (AES-256-GCM, random 96-bit nonce). */
  seal(plain: Uint8Array): { nonce: string; data: string; tag: string } {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#fileKey, nonce);
    cipher.setAAD(Buffer.from(this.keyId));
    const data = Buffer.concat([cipher.update(plain), cipher.final()]);
    return {
      nonce: nonce.toString("base64"),
      data: data.toString("base64"),
      tag: cipher.getAuthTag().toString("base64"),
    };
  }

  /** Decrypts what {@linkcode seal} wrote; throws when the key or the bytes differ. */
  unseal(sealed: { nonce: string; data: string; tag: string }): Uint8Array {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      this.#fileKey,
      Buffer.from(sealed.nonce, "base64"),
    );
    decipher.setAAD(Buffer.from(this.keyId));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]);
  }

  /** The original of an exact token, or undefined. */
  lookup(token: string): { value: string; entity: string } | undefined {
    return this.#reverse.get(token);
  }

  #hex(entity: string, value: string, attempt: number, length: number): string {
    return this.#digest(entity, value, attempt).toString("hex").slice(0, length);
  }

  #digits(entity: string, value: string, attempt: number): string {
    const bytes = this.#digest(entity, value, attempt);
    let out = "";
    for (let i = 0; i < value.length; i++) {
      const d = (bytes[i % 32]! + i * 7) % 10;
      out += i === 0 && value[0] !== "0" && d === 0 ? String(1 + (bytes[31]! % 9)) : String(d);
    }
    return out;
  }

  #shape(entity: string, value: string, attempt: number): string {
    switch (entity) {
      case "aws_account_id":
      case "number":
        return /^\d+$/.test(value)
          ? this.#digits(entity, value, attempt)
          : `${genericPrefix(entity)}-${this.#hex(entity, value, attempt, 10)}`;
      case "cloud_account":
        if (/^\d+$/.test(value)) return this.token("aws_account_id", value);
        if (UUID.test(value)) return this.token("uuid_v8", value);
        return `acct-${this.#hex(entity, value, attempt, 10)}`;
      case "uuid":
      case "uuid_v8":
      case "azure_subscription_id":
      case "azure_tenant_id":
        return this.#uuid(entity, value, attempt);
      case "aws_arn":
        return this.#arn(value, attempt);
      case "azure_resource_id":
        return this.#azure(value, attempt);
      case "email":
        return this.#email(value, attempt);
      case "hostname":
        return this.#hostname(value, attempt);
      case "username":
        return `user-${this.#hex(entity, value, attempt, 8)}`;
      case "aws_access_key_id":
      case "aws_unique_id": {
        const bytes = this.#digest(entity, value, attempt);
        let body = "";
        for (let i = 0; i < 16; i++) body += BASE32[bytes[i]! % 32];
        return value.slice(0, 4) + body;
      }
      case "mac_address":
        return this.#mac(value, attempt);
      case "resource_name":
      case "aws_resource_id": {
        const id = AWS_ID.exec(value);
        if (id) return `${id[1]}-${this.#hex(entity, value, attempt, id[2]!.length)}`;
        return `res-${this.#hex(entity, value, attempt, 10)}`;
      }
      default:
        if (entity.endsWith("_ip") || entity.endsWith("_cidr") || entity === "ip_address") {
          return this.#ip(value, attempt);
        }
        return `${genericPrefix(entity)}-${this.#hex(entity, value, attempt, 10)}`;
    }
  }

  #uuid(entity: string, value: string, attempt: number): string {
    const hex = this.#hex(entity, value.toLowerCase(), attempt, 32).split("");
    hex[12] = "8";
    hex[16] = "89ab"[parseInt(hex[16]!, 16) % 4]!;
    const h = hex.join("");
    const out = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${
      h.slice(20)
    }`;
    return value === value.toUpperCase() && /[A-F]/.test(value) ? out.toUpperCase() : out;
  }

  #arn(value: string, attempt: number): string {
    const parts = value.split(":");
    if (parts.length < 6) return `res-${this.#hex("aws_arn", value, attempt, 10)}`;
    const [arn, partition, service, region, account] = parts;
    const resource = parts.slice(5).join(":");
    const acct = /^\d{12}$/.test(account ?? "") ? this.token("aws_account_id", account!) : account;
    const segments = resource.split(/([/:])/);
    const keepFirst = service !== "s3" && segments.length > 1;
    const mapped = segments.map((segment, i) => {
      if (segment === "/" || segment === ":") return segment;
      if (i === 0 && keepFirst) return segment;
      if (segment === "" || segment === "*" || segment.startsWith("$")) return segment;
      if (i > 0 && /^\d{1,4}$/.test(segment)) return segment;
      if (/^\d{12}$/.test(segment)) return this.token("aws_account_id", segment);
      return this.token("resource_name", segment);
    }).join("");
    const out = [arn, partition, service, region, acct, mapped].join(":");
    return attempt === 0 ? out : `${out}#${attempt}`;
  }

  #azure(value: string, attempt: number): string {
    const parts = value.split("/");
    const out = parts.map((part, i) => {
      const before = (parts[i - 1] ?? "").toLowerCase();
      if (part === "" || i === 0) return part;
      if (before === "subscriptions") return this.token("azure_subscription_id", part);
      if (before === "tenants") return this.token("azure_tenant_id", part);
      if (before === "resourcegroups") {
        return `rg-${this.#hex("azure_resource_group", part, 0, 10)}`;
      }
      if (before === "providers" || i % 2 === 1) return part;
      return this.token("resource_name", part);
    }).join("/");
    return attempt === 0 ? out : `${out}#${attempt}`;
  }

  #email(value: string, attempt: number): string {
    const at = value.lastIndexOf("@");
    const user = value.slice(0, at);
    const domain = value.slice(at + 1);
    return `user-${this.#hex("email", user + "@" + domain, attempt, 8)}@d-${
      this.#hex("email_domain", domain.toLowerCase(), 0, 10)
    }.example`;
  }

  #hostname(value: string, attempt: number): string {
    const lower = value.toLowerCase();
    const suffix = CLOUD_SUFFIXES.find((s) => lower.endsWith(`.${s}`));
    if (!suffix) return `host-${this.#hex("hostname", lower, attempt, 8)}.example`;
    const labels = lower.slice(0, -suffix.length - 1).split(".");
    const mapped = labels.map((label) =>
      SERVICE_LABEL.test(label) ? label : `h-${this.#hex("hostname_label", label, attempt, 10)}`
    );
    return [...mapped, suffix].join(".");
  }

  #mac(value: string, attempt: number): string {
    const sep = value.includes("-") ? "-" : ":";
    const bytes = this.#digest("mac_address", value.toLowerCase(), attempt);
    const octets = [...bytes.subarray(0, 6)].map((b, i) =>
      (i === 0 ? (b | 0x02) & 0xfe : b).toString(16).padStart(2, "0")
    );
    const out = octets.join(sep);
    return value === value.toUpperCase() ? out.toUpperCase() : out;
  }

  #ip(value: string, attempt: number): string {
    const [address = "", bitsText] = value.split("/");
    const bits = bitsText === undefined ? undefined : Number(bitsText);
    const cls = ipClass(value);
    if (cls === "special" || cls === null) return value;
    const suffix = bitsText === undefined ? "" : `/${bitsText}`;
    if (!address.includes(":")) {
      if (cls === "private") {
        const [, blockBits] = privateBlock(address)!;
        if (bits !== undefined && bits <= blockBits) return value;
        return this.#permuteV4(address, blockBits, bits ?? 32, attempt) + suffix;
      }
      if (bits !== undefined && bits < 4) return value;
      const base = bits !== undefined && bits < 15 ? [240, 0, 0, 0] : [198, 18, 0, 0];
      const baseBits = bits !== undefined && bits < 15 ? 4 : 15;
      const num = ipaddr.IPv4.parse(address).toByteArray().reduce((a, b) => a * 256 + b, 0);
      const h = this.#digest("public_ip", String(num), attempt).readUInt32BE(0);
      const span = 2 ** (32 - baseBits);
      let out = base.reduce((a, b) => a * 256 + b, 0) + (h % span);
      if (bits !== undefined) out -= out % 2 ** (32 - bits);
      return v4(out) + suffix;
    }
    const bytes = this.#digest(cls === "private" ? "private_ip6" : "public_ip6", address, attempt);
    const groups = cls === "private"
      ? ["fd" + bytes.subarray(0, 1).toString("hex")]
      : ["2001", "db8"];
    while (groups.length < 8) {
      const i = groups.length * 2;
      groups.push(bytes.readUInt16BE(i).toString(16));
    }
    return ipaddr.parse(groups.join(":")).toString() + suffix;
  }

  /** Prefix-preserving keyed permutation of the bits after the block's prefix. */
  #permuteV4(address: string, blockBits: number, upTo: number, attempt: number): string {
    const num = ipaddr.IPv4.parse(address).toByteArray().reduce((a, b) => a * 256 + b, 0);
    let out = num;
    for (let i = blockBits; i < Math.min(upTo, 32); i++) {
      const prefix = `${attempt}|${i}|${Math.floor(num / 2 ** (32 - i))}`;
      let flip = this.#bitCache.get(prefix);
      if (flip === undefined) {
        flip = createHmac("sha256", this.#tokenize).update(`ip|${prefix}`).digest()[0]! & 1;
        this.#bitCache.set(prefix, flip);
      }
      if (flip) {
        const bit = 2 ** (31 - i);
        out = Math.floor(out / bit) % 2 === 1 ? out - bit : out + bit;
      }
    }
    return v4(out);
  }
}

function v4(num: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(num / 2 ** shift) % 256).join(".");
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CLOUD_SUFFIXES = [
  "amazonaws.com",
  "cloudfront.net",
  "elb.amazonaws.com",
  "azurewebsites.net",
  "cloudapp.net",
  "windows.net",
  "azure.com",
  "googleapis.com",
  "appspot.com",
];
const SERVICE_LABEL =
  /^(?:[a-z]{2}-[a-z]+-\d|s3|ec2|elb|rds|compute|internal|blob|core|database|vault|dkr|ecr|lambda|execute-api|sqs|sns|dynamodb)$/;

const PREFIXES: Record<string, string> = {
  resource_name: "res",
  dataset_name: "ds",
  cloud_account: "acct",
  url_username: "user",
  azure_resource_group: "rg",
  gcp_project_id: "proj",
  tag_value: "tag",
  person: "person",
  hostname_label: "h",
  email_domain: "d",
};

function genericPrefix(entity: string): string {
  if (PREFIXES[entity]) return PREFIXES[entity];
  if (/secret|password|token|key/.test(entity)) return "secret";
  return entity.replace(/[^a-z0-9]/g, "").slice(0, 10) || "tok";
}
