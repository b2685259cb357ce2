/**
 * Resolves at the first SIGINT or SIGTERM. Later signals are absorbed while the service shuts down
 * (a terminal's Ctrl-C reaches every process of the group, and a supervisor may send SIGTERM too), so
 * a second signal cannot cut a clean stop short.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals) => {
      process.off("SIGINT", first);
      process.off("SIGTERM", first);
      process.on("SIGINT", absorb);
      process.on("SIGTERM", absorb);
      resolve(signal);
    };
    process.on("SIGINT", first);
    process.on("SIGTERM", first);
  });
}

function absorb(): void {}
