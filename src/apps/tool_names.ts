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
/** Document summary. */
export const BINARY_OVERVIEW = "binary_overview";
/** String search. */
export const SEARCH_STRINGS = "search_strings";
/** Procedure-name search. */
export const SEARCH_PROCEDURES = "search_procedures";
/** Name or address to canonical procedure entry. */
export const PROCEDURE_ADDRESS = "procedure_address";
/** Address to containing procedure. */
export const RESOLVE_CONTAINING_PROCEDURE = "resolve_containing_procedure";
/** The bounded function dossier. */
export const ANALYZE_FUNCTION = "analyze_function";
/** References to an address. */
export const XREFS = "xrefs";
/** Direct callers. */
export const PROCEDURE_CALLERS = "procedure_callers";
/** Direct callees. */
export const PROCEDURE_CALLEES = "procedure_callees";
/** Bounded direct-call path search. */
export const BUILD_CALL_PATH = "build_call_path";
/** Literal seed to procedures and dossiers. */
export const TRACE_FEATURE = "trace_feature";
/** Two dossiers compared. */
export const COMPARE_FUNCTIONS = "compare_functions";
