/**
 * Vault persistence: the pseudonyms a policy issued, saved to a file so they
 * stay the same across restarts (`vault.path` in the policy). The file holds
 * `{format, encrypted, key_id, …}`: with `encrypt` (the default) the token
 * table is sealed with AES-256-GCM under a sub-key of the vault key, so the
 * file reveals nothing without the key; it is written with mode 0600 through
 * a temporary file and a rename, so a crash never leaves half a file.
 *
 * @module
 */

import type { PseudonymVault } from "./vault.ts";

/** The file format's name and version. */
export const VAULT_FILE_FORMAT = "casefile-vault/1";

/** Why a vault file could not be read or written. */
export class VaultFileError extends Error {
  override name = "VaultFileError";
}

/** How a vault is kept on disk. */
export interface VaultFileOptions {
  /** Seal the token table (AES-256-GCM). @default true */
  encrypt?: boolean;
  /** Save (debounced) after new tokens, besides at shutdown. @default true */
  autosave?: boolean;
  /** Debounce of autosave, in milliseconds. @default 2000 */
  autosaveDelayMs?: number;
}

type Entries = [string, string, string][];

/** A vault bound to its file. */
export class VaultFile {
  readonly path: string;
  readonly encrypt: boolean;
  readonly #vault: PseudonymVault;
  readonly #delay: number;
  #saved = -1;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the file was last written (ISO time), or null. */
  lastSaved: string | null = null;

  /** Binds `vault` to `path`; with autosave, new tokens schedule a save. */
  constructor(vault: PseudonymVault, path: string, options: VaultFileOptions = {}) {
    this.#vault = vault;
    this.path = path;
    this.encrypt = options.encrypt ?? true;
    this.#delay = options.autosaveDelayMs ?? 2000;
    if (options.autosave ?? true) vault.onIssue = () => this.#schedule();
  }

  /**
   * Reads the file into the vault, if it exists. Throws VaultFileError when
   * it cannot be read, is not a vault file, or was written under another key.
   */
  load(): number {
    let text: string;
    try {
      text = Deno.readTextFileSync(this.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return 0;
      throw new VaultFileError(this.#ioMessage("read", error));
    }
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new VaultFileError(`vault file ${this.path} is not JSON`);
    }
    if (doc?.format !== VAULT_FILE_FORMAT) {
      throw new VaultFileError(
        `vault file ${this.path} is not a ${VAULT_FILE_FORMAT} file (format ${
          JSON.stringify(doc?.format)
        })`,
      );
    }
    if (doc.key_id !== this.#vault.keyId) {
      throw new VaultFileError(
        `vault file ${this.path} was written under another key (key_id ${
          String(doc.key_id)
        }; this key's id is ${this.#vault.keyId}): set the key it was written with, or move the file away`,
      );
    }
    let entries: unknown;
    if (doc.encrypted === true) {
      try {
        const plain = this.#vault.unseal(doc as { nonce: string; data: string; tag: string });
        entries = JSON.parse(new TextDecoder().decode(plain));
      } catch {
        throw new VaultFileError(
          `vault file ${this.path} does not decrypt: it was altered or is damaged`,
        );
      }
    } else {
      entries = doc.entries;
    }
    if (!isEntries(entries)) {
      throw new VaultFileError(`vault file ${this.path} holds no token table`);
    }
    try {
      this.#vault.restore(entries);
    } catch (error) {
      throw new VaultFileError(`vault file ${this.path}: ${(error as Error).message}`);
    }
    this.#saved = this.#vault.issued;
    return entries.length;
  }

  /** Writes the vault if it changed since the last save (atomically, mode 0600). */
  save(): boolean {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#saved === this.#vault.issued) return false;
    const entries = this.#vault.entries();
    const head = { format: VAULT_FILE_FORMAT, encrypted: this.encrypt, key_id: this.#vault.keyId };
    const doc = this.encrypt
      ? { ...head, ...this.#vault.seal(new TextEncoder().encode(JSON.stringify(entries))) }
      : { ...head, entries };
    const temporary = `${this.path}.${Deno.pid}.tmp`;
    try {
      Deno.writeTextFileSync(temporary, JSON.stringify(doc), { mode: 0o600 });
      Deno.chmodSync(temporary, 0o600);
      Deno.renameSync(temporary, this.path);
    } catch (error) {
      try {
        Deno.removeSync(temporary);
      } catch { /* nothing was written */ }
      throw new VaultFileError(this.#ioMessage("write", error));
    }
    this.#saved = this.#vault.issued;
    this.lastSaved = new Date().toISOString();
    return true;
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    const timer = setTimeout(() => {
      this.#timer = undefined;
      try {
        this.save();
      } catch { /* reported by the save at shutdown */ }
    }, this.#delay);
    Deno.unrefTimer(timer as unknown as number);
    this.#timer = timer;
  }

  #ioMessage(verb: "read" | "write", error: unknown): string {
    const dir = this.path.slice(0, Math.max(1, this.path.lastIndexOf("/")));
    const flag = verb === "read"
      ? `--allow-read=${this.path}`
      : `--allow-read=${this.path} --allow-write=${dir}`;
    return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied
      ? `cannot ${verb} vault file ${this.path}: grant ${flag}`
      : `cannot ${verb} vault file ${this.path}: ${(error as Error).message}`;
  }
}

function isEntries(value: unknown): value is Entries {
  return Array.isArray(value) &&
    value.every((e) =>
      Array.isArray(e) && e.length === 3 && e.every((part) => typeof part === "string")
    );
}
