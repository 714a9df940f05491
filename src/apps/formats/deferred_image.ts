/**
 * A {@linkcode BinaryImage} whose costly parts are read on first use.
 *
 * Opening a target only has to identify it: format, architecture, entry,
 * sections, build id. The function starts, imports, exports and bindings of
 * a large library take far longer to read than its bytes take to hash, so a
 * reader may hand back a deferred image: the identifying fields are plain
 * data, and the first read of any deferred field runs the full reader once,
 * in place. Code that reads `image.functions` works unchanged; code that
 * wants to control when (and with what progress) the cost is paid calls
 * {@linkcode completeImage} first.
 *
 * @module
 */

import type { BinaryImage } from "./binary_image.ts";

/** The fields of a {@linkcode BinaryImage} a deferred image reads on first use. */
export const DEFERRED_FIELDS = [
  "functions",
  "functionTables",
  "imports",
  "localBindings",
  "exports",
  "exportVersions",
  "libraries",
  "wasmCode",
  "codeMarks",
] as const;

/** One deferred field. */
export type DeferredField = typeof DEFERRED_FIELDS[number];

/** What identifies a document: every field but the deferred ones. */
export type ImageHead = Omit<BinaryImage, DeferredField>;

/**
 * What the full read yields: the deferred fields and every warning of the
 * full read, and the identifying fields again (they replace the head's, which
 * may have come from only part of the bytes).
 */
export type ImageRest =
  & Pick<BinaryImage, DeferredField>
  & { warnings: string[] }
  & Partial<ImageHead>;

/** The identifying fields the full read restates (not the bytes, not the warnings). */
const HEAD_FIELDS = [
  "format",
  "document",
  "architecture",
  "machine",
  "bits",
  "endianness",
  "entry",
  "sections",
  "buildId",
  "fileBase",
] as const;

/** The pending full read of each image that has not run it yet. */
const pending = new WeakMap<BinaryImage, () => void>();

/** Why an image may not be read in full yet (its bytes are not all there). */
const held = new WeakMap<BinaryImage, string>();

/**
 * An image whose deferred fields come from `readRest` on first use.
 *
 * The head's `warnings` array stays the image's array: when the rest is
 * read, its warnings (which repeat the head's, since the full reader reads
 * the headers again) replace the head's ones, and warnings added to the
 * image meanwhile stay after them. When `readRest` throws, nothing changes
 * and the next use throws again.
 */
export function deferredImage(head: ImageHead, readRest: () => ImageRest): BinaryImage {
  const image = head as BinaryImage;
  const headWarnings = head.warnings.length;
  const complete = (): void => {
    const rest = readRest();
    pending.delete(image);
    for (const field of DEFERRED_FIELDS) {
      Object.defineProperty(image, field, {
        value: rest[field],
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    for (const field of HEAD_FIELDS) {
      if (rest[field] !== undefined) {
        (image as unknown as Record<string, unknown>)[field] = rest[field];
      }
    }
    const added = image.warnings.slice(headWarnings);
    image.warnings.splice(0, image.warnings.length, ...rest.warnings, ...added);
  };
  pending.set(image, complete);
  for (const field of DEFERRED_FIELDS) {
    Object.defineProperty(image, field, {
      get(): unknown {
        completeImage(image);
        return image[field];
      },
      set(value: unknown): void {
        completeImage(image);
        (image as unknown as Record<string, unknown>)[field] = value;
      },
      enumerable: true,
      configurable: true,
    });
  }
  return image;
}

/** Whether `image` still has its full read ahead of it. */
export function isDeferred(image: BinaryImage): boolean {
  return pending.has(image);
}

/**
 * Runs the full read of a deferred image now (nothing for any other image).
 *
 * @throws {Error} When the image is held ({@linkcode holdImage}): its bytes are not all read.
 */
export function completeImage(image: BinaryImage): void {
  const read = pending.get(image);
  if (!read) return;
  const reason = held.get(image);
  if (reason !== undefined) throw new Error(reason);
  read();
}

/**
 * Forbids the full read of `image` until {@linkcode releaseImage}: its bytes
 * hold only what identifies it so far. Reading a deferred field meanwhile
 * throws an Error with `reason`, never parses missing bytes.
 */
export function holdImage(image: BinaryImage, reason: string): void {
  held.set(image, reason);
}

/** Allows the full read of an image {@linkcode holdImage} held. */
export function releaseImage(image: BinaryImage): void {
  held.delete(image);
}
