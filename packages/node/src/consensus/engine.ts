import type { Block, BlockHeader } from "@ethereumjs/block";
import { bytesToHex, concatBytes, equalsBytes, hexToBytes } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import type { NetworkFile } from "../config/network.js";
import { stakingConfig } from "../config/network-sections.js";
import type { BlockContext, BlockHooks, BlockTemplate } from "../execution/block/block-executor.js";
import { checkHeaderAttestation, encodeAttestation } from "./attestation.js";
import { ConsensusError, NoProposerError, NotYourTurnError } from "./errors.js";
import type { FinalityGadget } from "./finality.js";
import type { ActiveValidator } from "./schedule.js";
import { earliestTimestamp, slotOrder } from "./schedule.js";
import { DEFAULT_VANITY, recoverSealer, sealBlock, sealHash, vanityOf } from "./seal.js";
import { ActiveSetReader, creditRewardPot, distributeRewards, recordSlot } from "./system-calls.js";

/** Active sets remembered by post-state root (the last few blocks built or verified). */
const ACTIVE_SET_CACHE_SIZE = 16;

/** How a node takes part in consensus. */
export interface PosEngineOptions {
  /** Keys this node seals with, by lowercase address. */
  readonly signers: ReadonlyMap<string, Uint8Array>;
  /** Validators (lowercase addresses) that do not seal although their key is known (dev: simulated outages). */
  readonly offline?: Iterable<string>;
  /**
   * A validator node among others: while it mines on an interval it waits out its turn in
   * wall-clock time (see {@link PosEngine.producerHooks}). When false (dev, or mining on demand), a
   * fallback seals at once with a timestamp moved forward.
   */
  readonly waitForTimeouts: boolean;
}

/** The slot decision of one block: who seals it and whom it skipped. */
export interface Slot {
  readonly proposer: string;
  readonly missed: readonly string[];
  /** Validators in the slot's order (the active set). */
  readonly setSize: number;
}

/**
 * The proof-of-stake engine: schedules the proposer of each block from the Staking contract's active
 * set, seals the blocks this node proposes, runs the per-block system calls, and verifies blocks
 * proposed elsewhere. See docs/consensus.md.
 */
export class PosEngine {
  readonly epochLength: bigint;
  readonly blockReward: bigint;
  readonly fallbackTimeout: bigint;
  readonly chainId: bigint;
  private offline: Set<string>;
  /** Votes and attestations; without it blocks carry no attestation (none is required). */
  private finality: FinalityGadget | undefined;
  /**
   * The active set after each recently built block, by its state root: read at the end of the
   * block on the warm VM that built it, it saves the next block a cold read of the parent state.
   */
  private readonly activeSets = new Map<string, ActiveValidator[]>();
  /** Reads the active set at the end of each block, without the EVM while it stays the same. */
  private readonly activeSetReader = new ActiveSetReader();
  /** Active validator sets kept by state root, and their bound, for the metrics. */
  readonly activeSetCache = { size: () => this.activeSets.size, bound: ACTIVE_SET_CACHE_SIZE };

  constructor(
    network: NetworkFile,
    private readonly options: PosEngineOptions,
  ) {
    if (!network.system || !network.consensus)
      throw new Error(`network ${network.name} has no consensus section`);
    const config = stakingConfig(network.system);
    this.epochLength = config.epochLength;
    this.blockReward = config.blockReward;
    this.fallbackTimeout = BigInt(network.consensus.fallbackTimeout);
    this.chainId = BigInt(network.chainId);
    this.offline = new Set([...(options.offline ?? [])].map((a) => a.toLowerCase()));
  }

  /** The keys this node seals (and votes) with, by lowercase address. */
  get signerKeys(): ReadonlyMap<string, Uint8Array> {
    return this.options.signers;
  }

  /** The addresses this node can seal for. */
  get signers(): string[] {
    return [...this.options.signers.keys()];
  }

  /** True when this node seals only in its own turn, waiting out timeouts in wall-clock time (a validator among others). */
  get waitsForTurn(): boolean {
    return this.options.waitForTimeouts;
  }

  /** Replaces the set of validators that do not seal (lowercase or checksummed addresses). */
  setOffline(addresses: Iterable<string>): void {
    this.offline = new Set([...addresses].map((a) => a.toLowerCase()));
  }

  /** Makes the proposer put the gadget's attestation for its parent into each block it seals. */
  attachFinality(finality: FinalityGadget): void {
    this.finality = finality;
  }

  /** True when `address` (lowercase) is a local validator treated as offline. */
  isOffline(address: string): boolean {
    return this.offline.has(address);
  }

  /**
   * The active set after `header` (the voters of that block and the schedule of its child) when
   * this engine built or verified the block recently; undefined otherwise.
   */
  cachedActiveSetAfter(header: BlockHeader): ActiveValidator[] | undefined {
    return this.cachedActiveSetAt(header.stateRoot);
  }

  /** {@link cachedActiveSetAfter} by the block's post-state root. */
  cachedActiveSetAt(stateRoot: Uint8Array): ActiveValidator[] | undefined {
    return this.activeSets.get(bytesToHex(stateRoot));
  }

  /**
   * Remembers `set` as the active set after the block whose post-state root is `stateRoot` (the set
   * the node that built the block worked out), so a replay of its child reads no Staking state for it.
   */
  rememberActiveSetAfter(stateRoot: Uint8Array, set: readonly ActiveValidator[]): void {
    this.rememberActiveSetAt(bytesToHex(stateRoot), [...set]);
  }

  /** The validators currently treated as offline. */
  get offlineValidators(): string[] {
    return [...this.offline];
  }

  /** True when block `number` is the last of its epoch (distributeRewards runs in it). */
  isEpochEnd(number: bigint): boolean {
    return number % this.epochLength === this.epochLength - 1n;
  }

  /**
   * Hooks that make this node propose and seal the next block, as the first validator in the slot's
   * order it may seal for. A validator among others mining every `intervalMs` seals at rank k only
   * once the interval plus k fallback timeouts have passed since its parent's timestamp, and k
   * timeouts since `headSeenAtMs` (when it adopted the parent as its head): the in-turn validator
   * gets a whole block time before anyone seals over it, and a node that just started or caught up
   * gives it its chance first. Before that, `prepare` throws {@link NotYourTurnError}.
   *
   * With `attestParent: false` the block carries no attestation and no votes are signed for its
   * parent: for the blocks of a run committed together but its last two, which alone decide `safe`
   * and `finalized` (a producer's run of empty blocks: docs/consensus.md, "Finality").
   */
  producerHooks(headSeenAtMs = 0, intervalMs = 0, { attestParent = true } = {}): BlockHooks {
    let slot: Slot | undefined;
    let endSet: ActiveValidator[] | undefined;
    let key: Uint8Array | undefined;
    let extraData: Promise<Uint8Array> | undefined;
    return {
      prepare: async (vm, parent, template) => {
        const active = await this.activeSet(vm, parent, template);
        const order = slotOrder(active, this.epochLength, parent.header.number + 1n);
        const rank = order.findIndex((v) => this.options.signers.has(v) && !this.offline.has(v));
        if (rank < 0) throw new NoProposerError(parent.header.number + 1n, order);
        const proposer = order[rank]!;
        key = this.options.signers.get(proposer);
        slot = { proposer, missed: order.slice(0, rank), setSize: order.length };
        const earliest = earliestTimestamp(parent.header.timestamp, rank, this.fallbackTimeout);
        if (this.options.waitForTimeouts && intervalMs > 0) {
          const waitMs = rank * Number(this.fallbackTimeout) * 1000;
          const dueMs = Math.max(
            Number(parent.header.timestamp) * 1000 + intervalMs + waitMs,
            headSeenAtMs + waitMs,
          );
          if (dueMs > Date.now())
            throw new NotYourTurnError(parent.header.number + 1n, BigInt(Math.ceil(dueMs / 1000)));
        }
        // The attestation goes in at sealing: the votes for the parent are signed while the block runs.
        extraData = attestParent ? this.extraDataOn(parent, active) : Promise.resolve(DEFAULT_VANITY);
        // Awaited by `seal`; a block that fails before it (or is never sealed) leaves it unobserved.
        extraData.catch(() => undefined);
        return {
          ...template,
          coinbase: hexToBytes(proposer as `0x${string}`),
          timestamp: template.timestamp > earliest ? template.timestamp : earliest,
          extraData: DEFAULT_VANITY,
        };
      },
      beforeTransactions: (context) => this.beforeTransactions(context, slot!),
      afterTransactions: async (context, fees) => {
        endSet = await this.afterTransactions(context, fees);
      },
      seal: async (block) => {
        this.rememberActiveSet(block, endSet);
        // The votes for the parent were handed over when the block began; a late thread is not waited for.
        if (attestParent) this.finality?.settleVotesNow();
        return sealBlock(block, key!, await extraData!);
      },
    };
  }

  /**
   * Hooks that re-execute `block` as its proposer must have built it: its sealer must be an active
   * validator whose turn had come (the scheduled one, or a fallback after its timeouts), and the
   * rebuilt block must equal it in every field the seal covers. Failures throw {@link ConsensusError}.
   */
  replayHooks(block: Block): BlockHooks {
    let slot: Slot | undefined;
    let endSet: ActiveValidator[] | undefined;
    const number = block.header.number;
    return {
      prepare: async (vm, parent, template) => {
        slot = await this.checkSlot(vm, parent, block);
        return asBuiltBy(block, template);
      },
      beforeTransactions: (context) => this.beforeTransactions(context, slot!),
      afterTransactions: async (context, fees) => {
        endSet = await this.afterTransactions(context, fees);
      },
      seal: (rebuilt) => {
        if (!equalsBytes(rebuilt.hash(), sealHash(block.header))) {
          throw new ConsensusError(number, describeMismatch(rebuilt, block), "execution");
        }
        this.rememberActiveSet(rebuilt, endSet);
        return block;
      },
    };
  }

  /**
   * Hooks that re-execute a block this node has stored, for tracing: the system calls of
   * {@link replayHooks}, with the block's miner as its proposer, without checking its seal,
   * attestation and timing again (a stored block was checked when it was built or imported, and
   * recovering signatures costs more than replaying a small block).
   */
  storedBlockHooks(block: Block): BlockHooks {
    let slot: Slot | undefined;
    return {
      prepare: async (vm, parent, template) => {
        slot = await this.storedSlot(vm, parent, block);
        return asBuiltBy(block, template);
      },
      beforeTransactions: (context) => this.beforeTransactions(context, slot!),
      afterTransactions: async (context, fees) => {
        await this.afterTransactions(context, fees);
      },
      seal: (rebuilt) => rebuilt,
    };
  }

  /** The slot of a stored block: its miner (who sealed it) and the validators ranked before it. */
  private async storedSlot(vm: VM, parent: Block, block: Block): Promise<Slot> {
    const proposer = bytesToHex(block.header.coinbase.bytes);
    const active = await this.activeSet(vm, parent, {
      timestamp: block.header.timestamp,
      coinbase: block.header.coinbase.bytes,
    });
    const order = slotOrder(active, this.epochLength, block.header.number);
    const rank = order.indexOf(proposer);
    if (rank < 0) {
      throw new ConsensusError(block.header.number, `miner ${proposer} is not in the active validator set`);
    }
    return { proposer, missed: order.slice(0, rank), setSize: order.length };
  }

  /**
   * Checks that `block`'s seal recovers to its miner, an active validator (read from `parent`'s state,
   * on which `vm` stands) whose turn had come by the block's timestamp: the scheduled one, or a
   * fallback after its rank's timeouts; and that the attestation in its header, if any, holds. Returns
   * the slot (proposer, the ranks it skipped, the size of the order); throws {@link ConsensusError}
   * otherwise.
   */
  async checkSlot(vm: VM, parent: Block, block: Block): Promise<Slot> {
    const number = block.header.number;
    const sealer = recoverSealer(block.header);
    if (!sealer) throw new ConsensusError(number, "missing or invalid seal in extraData");
    const miner = bytesToHex(block.header.coinbase.bytes);
    if (sealer !== miner) throw new ConsensusError(number, `sealed by ${sealer} but names ${miner} as miner`);
    const active = await this.activeSet(vm, parent, {
      timestamp: block.header.timestamp,
      coinbase: block.header.coinbase.bytes,
    });
    const problem = checkHeaderAttestation(block.header, parent.header, active, this.chainId);
    if (problem) throw new ConsensusError(number, problem);
    const order = slotOrder(active, this.epochLength, number);
    const rank = order.indexOf(sealer);
    if (rank < 0) throw new ConsensusError(number, `sealer ${sealer} is not in the active validator set`);
    const earliest = earliestTimestamp(parent.header.timestamp, rank, this.fallbackTimeout);
    if (block.header.timestamp < earliest) {
      throw new ConsensusError(
        number,
        `sealer ${sealer} is fallback ${rank} of slot (scheduled ${order[0]}) and may not seal before ${earliest}, block time ${block.header.timestamp}`,
      );
    }
    return { proposer: sealer, missed: order.slice(0, rank), setSize: order.length };
  }

  /**
   * The vanity of a block this node seals on `parent`, followed by the attestation for `parent` when
   * the votes for it (this node's own are signed here first) hold two thirds of `active`'s stake.
   * Votes that arrive while the block is built count.
   */
  private async extraDataOn(parent: Block, active: readonly ActiveValidator[]): Promise<Uint8Array> {
    if (!this.finality) return DEFAULT_VANITY;
    await this.finality.signLocalVotes(parent.header, active);
    const attestation = this.finality.attestationFor(parent.header, active);
    return attestation ? concatBytes(DEFAULT_VANITY, encodeAttestation(attestation)) : DEFAULT_VANITY;
  }

  /** The active set after the parent (the slot's candidates and the parent's voters), read from the parent state. */
  private async activeSet(vm: VM, parent: Block, template: BlockTemplate): Promise<ActiveValidator[]> {
    const number = parent.header.number + 1n;
    const context: BlockContext = {
      vm,
      parent,
      number,
      timestamp: template.timestamp,
      coinbase: template.coinbase,
      mixHash: new Uint8Array(32),
      gasLimit: parent.header.gasLimit,
      baseFeePerGas: parent.header.calcNextBaseFee(),
    };
    const root = bytesToHex(parent.header.stateRoot);
    const cached = this.activeSets.get(root);
    if (cached) return cached;
    // The set is the Staking contract's state alone: what a state root holds never changes.
    const set = await this.activeSetReader.read(context);
    this.rememberActiveSetAt(root, set);
    return set;
  }

  /** Files the active set read at the end of the block just built under the block's state root. */
  private rememberActiveSet(block: Block, set: ActiveValidator[] | undefined): void {
    if (set) this.rememberActiveSetAt(bytesToHex(block.header.stateRoot), set);
  }

  private rememberActiveSetAt(root: string, set: ActiveValidator[]): void {
    if (this.activeSets.size >= ACTIVE_SET_CACHE_SIZE) {
      this.activeSets.delete(this.activeSets.keys().next().value!);
    }
    this.activeSets.set(root, set);
  }

  private async beforeTransactions(context: BlockContext, slot: Slot): Promise<void> {
    await recordSlot(context, slot.proposer, slot.missed);
  }

  /** The block's closing system calls; returns the active set they leave for the next block. */
  private async afterTransactions(context: BlockContext, fees: bigint): Promise<ActiveValidator[]> {
    await creditRewardPot(context, this.blockReward, fees);
    if (this.isEpochEnd(context.number)) await distributeRewards(context);
    // Nothing after this point changes the Staking contract's state in this block.
    return this.activeSetReader.read(context);
  }
}

function describeMismatch(rebuilt: Block, block: Block): string {
  const a = rebuilt.header;
  const b = block.header;
  if (!equalsBytes(a.stateRoot, b.stateRoot)) {
    return `state root mismatch: block has ${bytesToHex(b.stateRoot)}, re-execution gives ${bytesToHex(a.stateRoot)}`;
  }
  if (!equalsBytes(a.receiptTrie, b.receiptTrie)) return "receipts root mismatch";
  if (!equalsBytes(a.transactionsTrie, b.transactionsTrie)) return "transactions root mismatch";
  if (a.gasUsed !== b.gasUsed)
    return `gas used mismatch: block has ${b.gasUsed}, re-execution gives ${a.gasUsed}`;
  return "header mismatch: the seal does not cover the re-executed header";
}

/** A re-execution's header template with the proposer's own coinbase, timestamp and vanity of `block`. */
function asBuiltBy<T extends object>(block: Block, template: T) {
  return {
    ...template,
    coinbase: block.header.coinbase.bytes,
    timestamp: block.header.timestamp,
    extraData: vanityOf(block.header),
  };
}
