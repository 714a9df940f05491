/** Names of the apps workbench's tools, one constant each. */

/** Session status without starting anything. */
export const BINARY_SESSION = "binary_session";
/** Open, reopen or switch the target. */
export const OPEN_BINARY = "open_binary";
/** Close the target and clear the session's Evidence. */
export const CLOSE_BINARY = "close_binary";
/** Documents of the target. */
export const LIST_DOCUMENTS = "list_documents";
/** Choose the current document. */
export const SET_CURRENT_DOCUMENT = "set_current_document";
/** Paged procedures of a document. */
export const LIST_PROCEDURES = "list_procedures";
