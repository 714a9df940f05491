/**
 * The sanitize transform: untrusted text (binary strings, cloud tags,
 * descriptions) is stripped of invisible and control characters, free-text
 * fields are capped, and strings that look like prompt injection are fenced
 * (`⟦untrusted⟧ … ⟦/untrusted⟧`), datamarked, redacted or flagged.
 *
 * @module
 */

import { TextCuts } from "./text_cut.ts";

/** Options of the sanitize transform. */
export interface SanitizeOptions {
  /** `fence`, `datamark`, `redact` or `flag`. @default "fence" */
  on_suspicious?: string;
  /** Longest free-text field. @default 2000 */
  max_free_text?: number;
}

/** What sanitizing did. */
export interface SanitizeReport {
  stripped_chars: number;
  truncated: number;
  suspicious: number;
}

const INVISIBLE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;
// The same class without the global flag, for the test every string takes: a global test
// reads and writes lastIndex, and costs twice as much.
const ANY_INVISIBLE = new RegExp(INVISIBLE.source, "u");
const FREE_TEXT_KEY =
  /^(?:name|.*_name|title|.*description.*|comment.*|message|note.*|summary|evidence|remediation|label.*|value|tags|alias.*|subject|display.*)$/i;
const INJECTION =
  /ignore (?:all |any |the )?(?:previous|prior|above|earlier) (?:instructions|prompts|rules)|disregard (?:all |the )?(?:previous|prior|above) |you are now (?:a|an|the) |new instructions:|system prompt|<\/?(?:system|assistant|instructions?)>|\bBEGIN (?:SYSTEM|INSTRUCTIONS)\b|do not (?:tell|inform|alert) the user|act as (?:an? )?(?:admin|root|system|developer)|call the tool|reveal_token|\bexfiltrate (?:the |all |any |this |these |those |every |your |my |our |their )?(?:data|secrets?|credentials?|keys?|tokens?|files?|contents?|passwords?|information|it|them)\b/i;
const SKIPPED = new Set(["_meta", "_annotations", "cursor", "next_cursor"]);

/** Where {@linkcode firstInvisible} found a character, and which. */
export interface InvisibleCharacter {
  /** Its offset in the text, in UTF-16 code units. */
  index: number;
  /** Its code point. */
  codePoint: number;
}

/**
 * The first character of `text` the sanitizer strips (an invisible or control character:
 * C0 controls but tab, line feed and carriage return; DEL; zero-width, bidirectional and tag
 * characters; the byte-order mark), or null when it has none.
 */
export function firstInvisible(text: string): InvisibleCharacter | null {
  const found = ANY_INVISIBLE.exec(text);
  return found === null ? null : { index: found.index, codePoint: found[0].codePointAt(0)! };
}

/** Whether a string looks like an attempt to instruct the model. */
export function looksLikeInjection(text: string): boolean {
  return text.length >= 12 && INJECTION.test(text);
}

/** Makes a sanitizer for JSON values; capped free text is cut through `cuts`. */
export function sanitizer(options: SanitizeOptions = {}, cuts: TextCuts = new TextCuts()): {
  apply<T>(value: T): T;
  /** Sanitizes one string found under `key`. */
  clean(text: string, key: string | undefined): string;
  /**
   * Whether `clean` returns `text` as it is, and counts nothing, under any key, when `text`
   * is at most {@linkcode quietLength} long: it has no invisible or control character and
   * does not look like prompt injection. Depends on the text alone.
   */
  quiet(text: string): boolean;
  /** The longest text {@linkcode quiet} speaks for (longer free text may be capped). */
  quietLength: number;
  report: SanitizeReport;
} {
  const action = options.on_suspicious ?? "fence";
  const cap = options.max_free_text ?? 2000;
  const report: SanitizeReport = { stripped_chars: 0, truncated: 0, suspicious: 0 };
  const clean = (text: string, key: string | undefined): string => {
    let out = text;
    if (ANY_INVISIBLE.test(out)) {
      const before = out.length;
      out = out.replace(INVISIBLE, "");
      report.stripped_chars += before - out.length;
    }
    if (key !== undefined && out.length > cap && FREE_TEXT_KEY.test(key)) {
      report.truncated++;
      out = cuts.cut(out, cap);
    }
    if (out.length >= 12 && !out.startsWith("⟦untrusted⟧") && INJECTION.test(out)) {
      report.suspicious++;
      switch (action) {
        case "fence":
          return `⟦untrusted⟧ ${out.replace(/[⟦⟧]/g, (c) => (c === "⟦" ? "[" : "]"))} ⟦/untrusted⟧`;
        case "datamark":
          return out.replaceAll(" ", "^");
        case "redact":
          return "[REDACTED:suspected_prompt_injection]";
        default:
          return out;
      }
    }
    return out;
  };
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === "string") return clean(value, key);
    if (Array.isArray(value)) return value.map((item) => walk(item, key));
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = SKIPPED.has(k) ? v : walk(v, k);
      return out;
    }
    return value;
  };
  // The tests clean() makes, in its order, without changing anything: when both fail, clean
  // strips nothing, caps nothing (the text is within the cap) and fences nothing.
  const quiet = (text: string): boolean =>
    !ANY_INVISIBLE.test(text) && !(text.length >= 12 && INJECTION.test(text));
  return {
    apply: <T>(value: T): T => walk(value, undefined) as T,
    clean,
    quiet,
    quietLength: cap,
    report,
  };
}

/** Removes untrusted fences from a string (for input reversal). */
export function stripFences(text: string): string {
  return text.replace(/^⟦untrusted⟧ ([\s\S]*) ⟦\/untrusted⟧$/, "$1");
}
