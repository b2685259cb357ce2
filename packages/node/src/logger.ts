import { type Logger, pino } from "pino";

/** Creates the root structured logger (JSON lines on stderr); modules take `logger.child({module})`. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: "strata-node" } }, pino.destination(2));
}
