import { type Logger, pino } from "pino";
import pretty from "pino-pretty";

/** How log lines are written: JSON lines, or human-readable lines for a terminal. */
export type LogFormat = "json" | "pretty";

/**
 * Creates a root structured logger on stderr; modules take `logger.child({module})`.
 * The format defaults to pretty on a terminal and JSON lines otherwise (`STRATA_LOG_FORMAT` overrides).
 */
export function createLogger(level: string, service = "strata-node", format = defaultLogFormat()): Logger {
  const options = { level, base: { service } };
  if (format === "pretty") {
    return pino(
      options,
      pretty({ destination: 2, sync: true, ignore: "pid,hostname,service", translateTime: "HH:MM:ss.l" }),
    );
  }
  return pino(options, pino.destination(2));
}

/** `STRATA_LOG_FORMAT` when it names a format, else pretty on a terminal and JSON elsewhere. */
export function defaultLogFormat(env = process.env, isTty = process.stderr.isTTY === true): LogFormat {
  const chosen = env.STRATA_LOG_FORMAT;
  if (chosen === "json" || chosen === "pretty") return chosen;
  return isTty ? "pretty" : "json";
}
