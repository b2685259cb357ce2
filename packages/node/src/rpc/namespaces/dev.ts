import { createTx, type TypedTxData } from "@ethereumjs/tx";
import { createAddressFromString } from "@ethereumjs/util";
import { Address, Bool, Bytes, Hash32, InvalidParamsError, Quantity, StorageSlot } from "@strata/protocol";
import { z } from "zod";
import { DevOnlyError } from "../../errors/domain-errors.js";
import type { DevStateEdit } from "../../producer/dev-state-edits.js";
import { defineMethod } from "../registry.js";
import type { RpcServices } from "../services.js";

/** At most this many blocks per `anvil_mine` call. */
const MAX_MINED_BLOCKS = 10_000n;

function requireDev(services: RpcServices, method: string): void {
  if (!services.config.network.devAccounts) throw new DevOnlyError(method);
}

/** A number as Hardhat and anvil take it: a JSON number (non-negative integer) or a hex quantity. */
const DevNumber = z.union([
  z
    .number()
    .int()
    .nonnegative()
    .refine(Number.isSafeInteger, "number too large: give it as a hex quantity")
    .transform((n) => BigInt(n)),
  Quantity,
]);

/** `evm_mine`'s argument: a timestamp, or anvil's `{timestamp?, blocks?}`. */
const MineOptions = z.union([
  DevNumber.transform((timestamp) => ({ timestamp, blocks: undefined as bigint | undefined })),
  z.object({ timestamp: DevNumber.optional(), blocks: DevNumber.optional() }),
]);

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

/** The same method under anvil's name (answering `anvilResult`) and Hardhat's (answering `true`). */
function bothNames<S extends readonly z.ZodType[]>(
  anvilName: string,
  hardhatName: string,
  params: S,
  required: number,
  run: (
    args: { [K in keyof S]: z.output<S[K]> },
    services: RpcServices,
    method: string,
  ) => Promise<void> | void,
  anvilResult: null | true = null,
) {
  const named = (method: string, result: null | true) =>
    defineMethod({
      params,
      required,
      handler: async (args, services) => {
        requireDev(services, method);
        await run(args as { [K in keyof S]: z.output<S[K]> }, services, method);
        return result;
      },
    });
  return { [anvilName]: named(anvilName, anvilResult), [hardhatName]: named(hardhatName, true) };
}

/**
 * Development-network controls as Hardhat and anvil take them (numbers as JSON numbers or hex
 * quantities): mining and its modes, the clock, account state edits and impersonation. On any other
 * network they answer -32601.
 */
export const devMethods = {
  evm_mine: defineMethod({
    params: [MineOptions],
    required: 0,
    handler: async ([options], services) => {
      requireDev(services, "evm_mine");
      if (options?.timestamp !== undefined) {
        checkTimestamp(services, options.timestamp);
        services.producer.setNextTimestamp(options.timestamp);
      }
      await mine(services, options?.blocks ?? 1n);
      return "0x0";
    },
  }),
  ...bothNames("anvil_mine", "hardhat_mine", [DevNumber, DevNumber], 0, async (args, services) => {
    const [count, interval] = args as [bigint | undefined, bigint | undefined];
    // An interval of 0 (viem's default) leaves the timestamps to the clock.
    await mine(services, count ?? 1n, interval || undefined);
  }),
  evm_setNextBlockTimestamp: defineMethod({
    params: [DevNumber],
    required: 1,
    handler: ([timestamp], services) => {
      requireDev(services, "evm_setNextBlockTimestamp");
      checkTimestamp(services, timestamp);
      services.producer.setNextTimestamp(timestamp);
      return null;
    },
  }),
  evm_increaseTime: defineMethod({
    params: [DevNumber],
    required: 1,
    handler: ([seconds], services) => {
      requireDev(services, "evm_increaseTime");
      // anvil answers the total offset as a JSON number.
      return Number(services.producer.increaseTime(seconds));
    },
  }),
  evm_setAutomine: defineMethod({
    params: [Bool],
    required: 1,
    handler: ([on], services) => {
      requireDev(services, "evm_setAutomine");
      services.producer.setAutomine(on);
      return null;
    },
  }),
  evm_setIntervalMining: defineMethod({
    params: [DevNumber],
    required: 1,
    handler: ([ms], services) => {
      requireDev(services, "evm_setIntervalMining");
      services.producer.setIntervalMining(Number(ms));
      return null;
    },
  }),
  ...bothNames(
    "anvil_setBalance",
    "hardhat_setBalance",
    [Address, DevNumber],
    2,
    (args, services, method) => {
      const [who, value] = args as [string, bigint];
      return edit(services, method, { kind: "balance", address: createAddressFromString(who), value });
    },
  ),
  ...bothNames("anvil_setNonce", "hardhat_setNonce", [Address, DevNumber], 2, (args, services, method) => {
    const [who, value] = args as [string, bigint];
    return edit(services, method, { kind: "nonce", address: createAddressFromString(who), value });
  }),
  ...bothNames("anvil_setCode", "hardhat_setCode", [Address, Bytes], 2, (args, services, method) => {
    const [who, code] = args as [string, string];
    return edit(services, method, {
      kind: "code",
      address: createAddressFromString(who),
      code: Buffer.from(code.slice(2), "hex"),
    });
  }),
  ...bothNames(
    "anvil_setStorageAt",
    "hardhat_setStorageAt",
    [Address, StorageSlot, Hash32],
    3,
    (args, services, method) => {
      const [who, slot, value] = args as [string, bigint, string];
      return edit(services, method, {
        kind: "storage",
        address: createAddressFromString(who),
        slot: Buffer.from(slot.toString(16).padStart(64, "0"), "hex"),
        value: Buffer.from(value.slice(2), "hex"),
      });
    },
    true,
  ),
  ...bothNames("anvil_impersonateAccount", "hardhat_impersonateAccount", [Address], 1, (args, services) => {
    services.impersonated.add((args[0] as string).toLowerCase());
  }),
  ...bothNames(
    "anvil_stopImpersonatingAccount",
    "hardhat_stopImpersonatingAccount",
    [Address],
    1,
    (args, services) => {
      services.impersonated.delete((args[0] as string).toLowerCase());
    },
  ),
};

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
