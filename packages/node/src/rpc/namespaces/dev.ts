import { createTx, type TypedTxData } from "@ethereumjs/tx";
import { createAddressFromString } from "@ethereumjs/util";
import {
  type DecodedParams,
  ErrorCode,
  InvalidParamsError,
  type MethodResult,
  type NodeMethodName,
  RpcError,
  toQuantity,
} from "@strata/protocol";
import { DevOnlyError } from "../../errors/domain-errors.js";
import type { DevStateEdit } from "../../storage/state-edits.js";
import { defineMethods, type Handler } from "../registry.js";
import type { RpcServices } from "../services.js";

/** At most this many blocks per `anvil_mine` call. */
const MAX_MINED_BLOCKS = 10_000n;

function requireDev(services: RpcServices, method: string): void {
  if (!services.config.network.devAccounts) throw new DevOnlyError(method);
}

/**
 * Throws -32004 on a node that takes blocks from other nodes (p2p or `--follow`): rewinding its
 * chain would part it from theirs.
 */
function requireStandalone(services: RpcServices, method: string): void {
  if (services.network !== undefined || services.config.follow !== undefined)
    throw new RpcError(
      ErrorCode.MethodNotSupported,
      `${method} is not available on a node that syncs blocks with other nodes (p2p or --follow)`,
    );
}

/** Throws -32602 unless `timestamp` comes after the head's (block timestamps strictly increase). */
function checkTimestamp(services: RpcServices, timestamp: bigint): void {
  const head = services.chain.head.header.timestamp;
  if (timestamp <= head)
    throw new InvalidParamsError(`timestamp ${timestamp} is not after the head's timestamp ${head}`);
}

async function mine(services: RpcServices, count: bigint, interval?: bigint): Promise<void> {
  if (count > MAX_MINED_BLOCKS)
    throw new InvalidParamsError(`invalid argument 0: at most ${MAX_MINED_BLOCKS} blocks per call`);
  await services.producer.mine(Number(count), interval);
}

/** Queues a state edit for the next block, mined at once under automine (see docs/rpc-methods.md). */
async function edit(services: RpcServices, method: string, change: DevStateEdit): Promise<void> {
  requireDev(services, method);
  services.producer.edits.add(change);
  await services.producer.applyEdits();
}

/**
 * A development control's handler: refuses off dev networks, runs `run`, then answers `result` (anvil
 * answers most controls with `null`, Hardhat with `true`).
 */
function control<M extends NodeMethodName>(
  method: M,
  result: MethodResult<M>,
  run: (args: DecodedParams<M>, services: RpcServices, method: string) => Promise<void> | void,
): Handler<M> {
  return async (args, services) => {
    requireDev(services, method);
    await run(args, services, method);
    return result;
  };
}

const mineBlocks = async ([count, interval]: DecodedParams<"anvil_mine">, services: RpcServices) =>
  // An interval of 0 (viem's default) leaves the timestamps to the clock.
  mine(services, count ?? 1n, interval || undefined);
const setBalance = ([who, value]: DecodedParams<"anvil_setBalance">, services: RpcServices, method: string) =>
  edit(services, method, { kind: "balance", address: createAddressFromString(who), value });
const setNonce = ([who, value]: DecodedParams<"anvil_setNonce">, services: RpcServices, method: string) =>
  edit(services, method, { kind: "nonce", address: createAddressFromString(who), value });
const setCode = ([who, code]: DecodedParams<"anvil_setCode">, services: RpcServices, method: string) =>
  edit(services, method, {
    kind: "code",
    address: createAddressFromString(who),
    code: Buffer.from(code.slice(2), "hex"),
  });
const setStorageAt = (
  [who, slot, value]: DecodedParams<"anvil_setStorageAt">,
  services: RpcServices,
  method: string,
) =>
  edit(services, method, {
    kind: "storage",
    address: createAddressFromString(who),
    slot: Buffer.from(slot.toString(16).padStart(64, "0"), "hex"),
    value: Buffer.from(value.slice(2), "hex"),
  });
const impersonate = ([who]: DecodedParams<"anvil_impersonateAccount">, services: RpcServices) => {
  services.impersonated.add(who.toLowerCase());
};
const stopImpersonating = ([who]: DecodedParams<"anvil_stopImpersonatingAccount">, services: RpcServices) => {
  services.impersonated.delete(who.toLowerCase());
};
const reset = async ([options]: DecodedParams<"anvil_reset">, services: RpcServices, method: string) => {
  const forking = options?.forking;
  if (forking && (forking.jsonRpcUrl !== undefined || (forking.blockNumber ?? null) !== null))
    throw new InvalidParamsError(
      `invalid argument 0: forking is not supported: ${method} without it resets the chain to its genesis`,
    );
  requireStandalone(services, method);
  await services.snapshots.reset();
};

/** `evm_snapshot` under its name and anvil's: the new snapshot's id as a hex quantity. */
function snapshot(method: "evm_snapshot" | "anvil_snapshot"): Handler<typeof method> {
  return async (_args, services) => {
    requireDev(services, method);
    requireStandalone(services, method);
    return toQuantity(await services.snapshots.take());
  };
}

/** `evm_revert` under its name and anvil's: true once reverted, false for an unknown (or used) id. */
function revert(method: "evm_revert" | "anvil_revert"): Handler<typeof method> {
  return async ([id], services) => {
    requireDev(services, method);
    requireStandalone(services, method);
    return services.snapshots.revert(id);
  };
}

/**
 * Development-network controls as Hardhat and anvil take them (numbers as JSON numbers or hex
 * quantities): mining and its modes, the clock, account state edits, impersonation, snapshots and
 * reset. On any other network they answer -32601.
 */
export const devMethods = defineMethods({
  evm_mine: async ([options], services) => {
    requireDev(services, "evm_mine");
    if (options?.timestamp !== undefined) {
      checkTimestamp(services, options.timestamp);
      services.producer.setNextTimestamp(options.timestamp);
    }
    await mine(services, options?.blocks ?? 1n);
    return "0x0" as const;
  },
  anvil_mine: control("anvil_mine", null, mineBlocks),
  hardhat_mine: control("hardhat_mine", true, mineBlocks),
  evm_setNextBlockTimestamp: ([timestamp], services) => {
    requireDev(services, "evm_setNextBlockTimestamp");
    checkTimestamp(services, timestamp);
    services.producer.setNextTimestamp(timestamp);
    return null;
  },
  evm_increaseTime: ([seconds], services) => {
    requireDev(services, "evm_increaseTime");
    // anvil answers the total offset as a JSON number.
    return Number(services.producer.increaseTime(seconds));
  },
  evm_setAutomine: ([on], services) => {
    requireDev(services, "evm_setAutomine");
    services.producer.setAutomine(on);
    return null;
  },
  evm_setIntervalMining: ([ms], services) => {
    requireDev(services, "evm_setIntervalMining");
    services.producer.setIntervalMining(Number(ms));
    return null;
  },
  anvil_setBalance: control("anvil_setBalance", null, setBalance),
  hardhat_setBalance: control("hardhat_setBalance", true, setBalance),
  anvil_setNonce: control("anvil_setNonce", null, setNonce),
  hardhat_setNonce: control("hardhat_setNonce", true, setNonce),
  anvil_setCode: control("anvil_setCode", null, setCode),
  hardhat_setCode: control("hardhat_setCode", true, setCode),
  anvil_setStorageAt: control("anvil_setStorageAt", true, setStorageAt),
  hardhat_setStorageAt: control("hardhat_setStorageAt", true, setStorageAt),
  anvil_impersonateAccount: control("anvil_impersonateAccount", null, impersonate),
  hardhat_impersonateAccount: control("hardhat_impersonateAccount", true, impersonate),
  anvil_stopImpersonatingAccount: control("anvil_stopImpersonatingAccount", null, stopImpersonating),
  hardhat_stopImpersonatingAccount: control("hardhat_stopImpersonatingAccount", true, stopImpersonating),
  evm_snapshot: snapshot("evm_snapshot"),
  anvil_snapshot: snapshot("anvil_snapshot"),
  evm_revert: revert("evm_revert"),
  anvil_revert: revert("anvil_revert"),
  anvil_reset: control("anvil_reset", null, reset),
  hardhat_reset: control("hardhat_reset", true, reset),
});

/**
 * The transaction `from` sends when impersonated: it cannot be signed, so it carries a placeholder
 * signature (`r` the sender's address, `s` 1, so two senders' otherwise equal transactions differ)
 * and answers its sender from that address, as anvil's impersonated transactions do.
 */
export function impersonatedTransaction(data: TypedTxData, from: string, services: RpcServices) {
  const tx = createTx(
    { ...data, v: data.type === 0 || data.type === undefined ? 27n : 0n, r: BigInt(from), s: 1n },
    { common: services.chain.common, freeze: false },
  );
  const sender = createAddressFromString(from);
  Object.defineProperty(tx, "getSenderAddress", { value: () => sender });
  Object.freeze(tx);
  return tx;
}
