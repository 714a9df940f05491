/**
 * Logging: one function, to stderr (stdout carries the protocol) and, when a
 * client is connected and asked for it, as MCP log notifications.
 *
 * @module
 */

/** Levels, least to most severe (MCP's names). */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** A log level. */
export type LogLevel = typeof LOG_LEVELS[number];

/** Writes a log line. */
export type Logger = (level: LogLevel, message: string, data?: Record<string, unknown>) => void;

/** Whether `level` is at least `threshold`. */
export function atLeast(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

/** A logger writing `casefile <level>: <message>` lines to stderr at or above `threshold`. */
export function stderrLogger(threshold: LogLevel = "warning"): Logger {
  const encoder = new TextEncoder();
  return (level, message, data) => {
    if (!atLeast(level, threshold)) return;
    const suffix = data ? ` ${JSON.stringify(data)}` : "";
    try {
      Deno.stderr.writeSync(encoder.encode(`casefile ${level}: ${message}${suffix}\n`));
    } catch {
      // stderr closed: nothing useful left to do
    }
  };
}
