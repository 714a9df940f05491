/**
 * The errors the cloud domain throws on bad input. Each carries a `data`
 * object with the facts a caller needs (the value it sent, suggestions, the
 * valid values); the message is a plain sentence that never repeats the
 * caller's value or names taken from a dataset.
 *
 * @module
 */

/** Structured facts attached to a cloud error (all fields optional). */
export interface CloudErrorData {
  /** The value the caller sent. */
  value?: unknown;
  /** The dataset the lookup ran against. */
  dataset?: string;
  /** Near hits for an unknown reference. */
  suggestions?: unknown[];
  /** Every accepted value of an enumeration. */
  valid?: readonly string[];
  /** Up to three accepted values close to the one sent. */
  close_matches?: string[];
  /** Ids of the assets sharing an ambiguous name. */
  ambiguous?: string[];
  /** Hints for an ambiguous reference. */
  candidates?: unknown[];
  /** The loaded datasets, as `{dataset: name}`. */
  datasets?: { dataset: string }[];
  /** The name already taken. */
  existing?: string;
  /** A free name to use instead. */
  suggested?: string;
  /** Any further fact. */
  [key: string]: unknown;
}

/** How a cloud error is reported: bad arguments, or something named that does not exist. */
export type CloudErrorKind = "invalid_argument" | "not_found";

/** Base of every cloud domain error. */
export class CloudError extends Error {
  /** Facts for the caller (`error_data`). */
  readonly data: CloudErrorData;
  /** The reporting class. */
  readonly kind: CloudErrorKind;

  /** Builds an error with a message and its data. */
  constructor(
    message: string,
    data: CloudErrorData = {},
    kind: CloudErrorKind = "invalid_argument",
  ) {
    super(message);
    this.name = new.target.name;
    this.data = data;
    this.kind = kind;
  }
}

/** An argument outside its accepted values or range. */
export class InvalidArgumentError extends CloudError {}

/** Something named by the caller (dataset, asset, finding, topic…) does not exist. */
export class NotFoundError extends CloudError {
  /** Builds a not-found error. */
  constructor(message: string, data: CloudErrorData = {}) {
    super(message, data, "not_found");
  }
}

/** An enumeration argument (severity, asset type, format…) that matches no accepted value. */
export class InvalidEnumError extends InvalidArgumentError {}

/** No dataset is loaded, so nothing can be queried. */
export class NoDatasetError extends NotFoundError {}

/** A dataset name that is not loaded. */
export class UnknownDatasetError extends NotFoundError {}

/** A dataset name that breaks the naming rule. */
export class DatasetNameError extends InvalidArgumentError {}

/** A dataset name already loaded, without `replace`. */
export class DatasetExistsError extends InvalidArgumentError {}

/** An asset reference that matches no asset. */
export class UnknownAssetError extends NotFoundError {}

/** An asset reference that matches several assets. */
export class AmbiguousAssetError extends InvalidArgumentError {}

/** A finding id that matches no finding. */
export class UnknownFindingError extends NotFoundError {}

/** A cursor that is not of the `c<offset>.<12 hex>` form. */
export class InvalidCursorError extends InvalidArgumentError {}

/** A cursor issued for other filters, another version or another load of the dataset. */
export class StaleCursorError extends InvalidArgumentError {}

/** A file or directory that cannot be loaded as a dataset. */
export class LoadError extends InvalidArgumentError {}

/** A documentation topic that does not exist. */
export class UnknownTopicError extends NotFoundError {}

/** A compliance framework or control with no data. */
export class UnknownFrameworkError extends NotFoundError {}
