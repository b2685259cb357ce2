import type { CallFrame } from "../../../execution/tracing/call-tracer.js";

/** One entry of `ots_traceTransaction`: a call frame in depth-first order. */
export interface OtsTraceEntry {
  type: string;
  depth: number;
  from: string;
  to: string | null;
  value: string | null;
  input: string;
  output: string;
}

/** One entry of `ots_getInternalOperations`. */
export interface InternalOperation {
  /** 0 transfer, 1 self-destruct, 2 create, 3 create2. */
  type: 0 | 1 | 2 | 3;
  from: string;
  to: string | null;
  value: string;
}

const NO_VALUE = new Set(["STATICCALL", "DELEGATECALL"]);

/** Flattens a call tree into Otterscan's trace entries (depth 0 is the transaction). */
export function traceEntries(root: CallFrame): OtsTraceEntry[] {
  const entries: OtsTraceEntry[] = [];
  const visit = (frame: CallFrame, depth: number) => {
    entries.push({
      type: frame.type,
      depth,
      from: frame.from,
      to: frame.to ?? null,
      value: NO_VALUE.has(frame.type) ? null : (frame.value ?? "0x0"),
      input: frame.input,
      output: frame.output ?? "0x",
    });
    for (const child of frame.calls ?? []) visit(child, depth + 1);
  };
  visit(root, 0);
  return entries;
}

/** The ether transfers, creations and self-destructs inside a transaction, in execution order. */
export function internalOperations(root: CallFrame): InternalOperation[] {
  const operations: InternalOperation[] = [];
  const visit = (frame: CallFrame, depth: number) => {
    if (depth > 0) {
      const value = frame.value ?? "0x0";
      const to = frame.to ?? null;
      if (frame.type === "CALL" && value !== "0x0") operations.push({ type: 0, from: frame.from, to, value });
      else if (frame.type === "SELFDESTRUCT") operations.push({ type: 1, from: frame.from, to, value });
      else if (frame.type === "CREATE") operations.push({ type: 2, from: frame.from, to, value });
      else if (frame.type === "CREATE2") operations.push({ type: 3, from: frame.from, to, value });
    }
    for (const child of frame.calls ?? []) visit(child, depth + 1);
  };
  visit(root, 0);
  return operations;
}
