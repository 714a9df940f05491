/**
 * Known names: the names a workbench knows to identify something of the
 * investigated estate (a cloud asset's name, a dataset's name). Content
 * detectors cannot recognise `web-1` or `orders-db` as identifiers; a
 * pseudonymising profile learns them from here, so such a name is
 * pseudonymised wherever it appears as a whole value and as a word of free
 * text, and a completion of it answers with its pseudonym.
 *
 * @module
 */

/** Tells the entity (`resource_name`, `dataset_name`…) of a known name, or undefined. */
export type NameSource = (text: string) => string | undefined;

/** The live union of every workbench's name sources. */
export class NameIndex {
  readonly #sources: NameSource[] = [];

  /** Adds a source (a workbench's lookup over its current session); returns its removal. */
  add(source: NameSource): () => void {
    this.#sources.push(source);
    return () => {
      const at = this.#sources.indexOf(source);
      if (at >= 0) this.#sources.splice(at, 1);
    };
  }

  /** Whether any source is registered. */
  get empty(): boolean {
    return this.#sources.length === 0;
  }

  /** The entity of `text` if some source knows it as a name. */
  entityOf(text: string): string | undefined {
    for (const source of this.#sources) {
      const entity = source(text);
      if (entity !== undefined) return entity;
    }
    return undefined;
  }
}

/** A word of free text that may be a name: no whitespace, quotes, brackets or separators. */
const WORD = /[^\s"'`,;()[\]{}<>]+/g;
const TRAILING = /[.:!?]+$/;

/**
 * Replaces every word of `text` that `index` knows as a name with
 * `replace(word, entity)`; returns `text` itself when nothing matched.
 */
export function replaceNameMentions(
  text: string,
  index: NameIndex,
  replace: (name: string, entity: string) => string,
): string {
  let changed = false;
  const out = text.replace(WORD, (word) => {
    let entity = index.entityOf(word);
    let name = word;
    if (entity === undefined) {
      const trimmed = word.replace(TRAILING, "");
      if (trimmed === word || trimmed.length === 0) return word;
      entity = index.entityOf(trimmed);
      if (entity === undefined) return word;
      name = trimmed;
    }
    changed = true;
    return replace(name, entity) + word.slice(name.length);
  });
  return changed ? out : text;
}
