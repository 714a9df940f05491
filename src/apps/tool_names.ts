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
/** Inventory the active artifact target. */
export const INVENTORY_ARTIFACT = "inventory_artifact";
/** Compare two retained inventories. */
export const COMPARE_ARTIFACTS = "compare_artifacts";
/** Extract chosen members (approved writes only). */
export const EXTRACT_ARTIFACT = "extract_artifact";
/** Snapshot the session's Evidence as a bundle. */
export const SNAPSHOT_EVIDENCE_BUNDLE = "snapshot_evidence_bundle";
/** Release a retained bundle. */
export const RELEASE_EVIDENCE_BUNDLE = "release_evidence_bundle";
/** Check a reconstruction specification against retained comparisons. */
export const VERIFY_RECONSTRUCTION = "verify_reconstruction";
/** Record a residual unknown (approval-gated registry write). */
export const RECORD_UNKNOWN = "record_unknown";
/** Compare-and-swap update of a residual unknown. */
export const UPDATE_UNKNOWN = "update_unknown";
/** Current heads of the residual-unknowns registry. */
export const LIST_UNKNOWNS = "list_unknowns";
/** Whether an unknown is resolved, and as a verified truth claim. */
export const VERIFY_UNKNOWN_RESOLUTION = "verify_unknown_resolution";
/** Run an approved, bounded process capture. */
export const CAPTURE_PROCESS_SCENARIO = "capture_process_scenario";
/** Two captures compared. */
export const COMPARE_PROCESS_CAPTURES = "compare_process_captures";
/** A runtime address tied to its static procedure. */
export const CORRELATE_STATIC_AND_RUNTIME = "correlate_static_and_runtime";
/** Changed behaviour across comparisons. */
export const FIND_CHANGED_BEHAVIOR = "find_changed_behavior";
