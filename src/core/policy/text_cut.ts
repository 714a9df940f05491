/**
 * Text cuts of the output policy: every transform that shortens a text value
 * (sanitize's free-text cap, project's longest string and its character
 * budget) cuts it here, so the value ends in one marker saying how many
 * characters went and where the whole text is, and the answer's own
 * `limitations` list, when it has one, says that the policy cut it.
 *
 * @module
 */

/** The cuts one output transform made so far (a checkpoint to roll back to). */
export interface CutCount {
  /** Text values cut. */
  values: number;
  /** Characters removed from them. */
  removed: number;
}

/**
 * The text cuts of one compiled policy's output transforms: {@linkcode TextCuts.begin} starts
 * one transform (naming where the whole value is kept), the stages cut through
 * {@linkcode TextCuts.cut}, and {@linkcode TextCuts.noted} adds the sentence to the answer's
 * `limitations`. Transforms are synchronous, so one instance serves every call in turn.
 */
export class TextCuts {
  #where: string | undefined = undefined;
  #count: CutCount = { values: 0, removed: 0 };
  #lists: { shortened: number; maxItems: number } = { shortened: 0, maxItems: 0 };

  /** Starts one transform; `where` names the place the whole value is kept (an Evidence URI). */
  begin(where?: string): void {
    this.#where = where;
    this.#count = { values: 0, removed: 0 };
    this.#lists = { shortened: 0, maxItems: 0 };
  }

  /** Records that the current transform shortened `shortened` lists to at most `maxItems` items. */
  listsShortened(shortened: number, maxItems: number): void {
    this.#lists = { shortened, maxItems };
  }

  /** The cuts of the current transform so far. */
  get count(): CutCount {
    return { ...this.#count };
  }

  /** Forgets the cuts made since `count` was read (a projection pass that is run again). */
  restore(count: CutCount): void {
    this.#count = { ...count };
  }

  /** `text` cut to its first `keep` characters, ending in a marker that says what went and where it is whole. */
  cut(text: string, keep: number): string {
    const removed = text.length - keep;
    this.#count.values++;
    this.#count.removed += removed;
    return `${
      text.slice(0, keep)
    }… [+${removed} chars: the output policy shows at most ${keep} of the ${text.length} characters of this text; ${this.#whole()}]`;
  }

  /**
   * `value` with one sentence added to its top-level `limitations` list (a list of strings)
   * when the current transform cut any text; any other value is returned as it is.
   */
  noted<T>(value: T): T {
    const { values, removed } = this.#count;
    const { shortened, maxItems } = this.#lists;
    if (
      (values === 0 && shortened === 0) || value === null || typeof value !== "object" ||
      Array.isArray(value)
    ) {
      return value;
    }
    const limitations = (value as Record<string, unknown>).limitations;
    if (!Array.isArray(limitations) || limitations.some((l) => typeof l !== "string")) {
      return value;
    }
    const record = this.#where === undefined
      ? ""
      : " (fields named truncated describe that record, not this cut)";
    const sentences: string[] = [];
    if (values > 0) {
      sentences.push(
        `The output policy cut ${values} text value${
          values === 1 ? "" : "s"
        } of this answer (${removed} characters in all; each cut ends in a marker saying so): ${this.#whole()}${record}.`,
      );
    }
    if (shortened > 0) {
      sentences.push(
        `The output policy shortened ${shortened} list${
          shortened === 1 ? "" : "s"
        } of this answer to at most ${maxItems} item${
          maxItems === 1 ? "" : "s"
        } each (see _policy_truncation): ${
          this.#where === undefined
            ? "ask for fewer items to see every one"
            : `every item is in the stored Evidence ${this.#where}`
        }${record}.`,
      );
    }
    return { ...value, limitations: [...limitations, ...sentences] };
  }

  #whole(): string {
    return this.#where === undefined
      ? "only a policy without this limit shows the whole text"
      : `the whole text is in the stored Evidence ${this.#where}`;
  }
}
