import { type GossipSub, type GossipsubMessage, gossipsub } from "@chainsafe/libp2p-gossipsub";
import { createPeerScoreParams, createTopicScoreParams } from "@chainsafe/libp2p-gossipsub/score";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { type Block, createBlockFromRLP } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex, equalsBytes, hexToBytes } from "@ethereumjs/util";
import { identify } from "@libp2p/identify";
import { type Libp2p, type PeerId, type Stream, TopicValidatorResult } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { ping } from "@libp2p/ping";
import { tcp } from "@libp2p/tcp";
import { type Multiaddr, multiaddr } from "@multiformats/multiaddr";
import { createLibp2p } from "libp2p";
import type { Logger } from "pino";
import { type BlockVerifier, INVALID_KINDS } from "../chain/block-verifier.js";
import type { Chain } from "../chain/chain.js";
import type { P2PSettings } from "../config/node-config.js";
import { decodeVote, encodeVote, VOTE_LENGTH } from "../consensus/attestation.js";
import type { FinalityGadget } from "../consensus/finality.js";
import { ForkChoice, MAX_REORG_DEPTH } from "../consensus/fork-choice.js";
import { keccak256 } from "../crypto/keccak.js";
import type { SenderRecovery } from "../crypto/sender-recovery.js";
import type { BlockProducer } from "../producer/block-producer.js";
import { BLOB_TX_MAX_BYTES, decodeRawTransaction } from "../txpool/decode.js";
import type { TxPool } from "../txpool/tx-pool.js";
import { loadP2PIdentity } from "./identity.js";
import { type ImportResult, RangeSync } from "./range-sync.js";
import { readFrames, readOneFrame, writeFrames } from "./streams.js";
import {
  decodeRangeRequest,
  decodeStatus,
  decodeTransactionBatch,
  encodeRangeRequest,
  encodeStatus,
  encodeTransactionBatch,
  GOSSIP_BATCH_BYTES,
  MAX_BLOCK_BYTES,
  MAX_FUTURE_SECONDS,
  MAX_GOSSIP_TRANSACTIONS,
  MAX_PUSHED_TRANSACTIONS,
  MAX_RANGE_REQUEST_BYTES,
  MAX_RANGE_RESPONSE_BYTES,
  MAX_STATUS_BYTES,
  PROTOCOLS,
  refOf,
  type Status,
  type Topics,
  topicsFor,
  WireError,
  wireFormOf,
} from "./wire.js";

/** What the network needs from the node around it. */
export interface P2PNetworkDeps {
  readonly settings: P2PSettings;
  readonly datadir: string | null;
  readonly chainId: number;
  readonly chain: Chain;
  readonly pool: TxPool;
  readonly verifier: BlockVerifier;
  /** Finality votes to gossip and to take in; undefined on a network without consensus. */
  readonly finality: FinalityGadget | undefined;
  /** Blocks from peers are committed between the producer's own builds. */
  readonly producer: BlockProducer;
  readonly senderRecovery: SenderRecovery | undefined;
  readonly maxTxBytes: number;
  /** Blocks carry a proof-of-stake seal (longer extraData than plain blocks). */
  readonly sealed: boolean;
  readonly log: Logger;
}

/** Timeout of one status exchange or range request, ms. */
const REQUEST_TIMEOUT_MS = 10_000;
/** How often every peer is asked for its status again (finds peers that moved ahead), ms. */
const STATUS_INTERVAL_MS = 5_000;
/** How often bootnodes that are not connected are dialled again, ms. */
const REDIAL_INTERVAL_MS = 3_000;
/** How often peer scores are checked against {@link DISCONNECT_SCORE}, ms. */
const SCORE_CHECK_MS = 1_000;
/** A peer whose gossipsub score falls below this is disconnected and banned for {@link BAN_MS}. */
export const DISCONNECT_SCORE = -80;
/** How long a disconnected peer may not come back, ms. */
const BAN_MS = 60_000;
/** Penalty of a malformed request or answer on a request/response stream. */
const MALFORMED_PENALTY = 20;
/** Penalty of a block that passed the seal check but failed re-execution. */
const INVALID_BLOCK_PENALTY = 50;
/** How long a client's transaction waits for others to share its gossip message, ms. */
const GOSSIP_BATCH_DELAY_MS = 20;
/** Penalty of re-sending transactions this node already holds (after gossip's own dedup expired). */
const DUPLICATE_TX_PENALTY = 0.5;
/** Application penalties shrink by this factor every decay interval (a second). */
const PENALTY_DECAY = 0.98;
/** Block hashes remembered as received from peers (not announced again). */
const RECEIVED_BLOCKS = 1024;
/** Concurrent inbound streams per protocol and connection. */
const MAX_INBOUND_STREAMS = 4;

/**
 * The node's libp2p host and the Strata protocols on it: the status handshake (peers on another
 * chain are dropped), gossip of transactions (into the pool by its normal rules) and blocks
 * (relayed only after their seal and schedule check, imported only after re-execution), and
 * blocks-by-range sync. Invalid, oversized or future messages are rejected and lower the sender's
 * gossipsub score; a peer below {@link DISCONNECT_SCORE} is disconnected. See docs/network.md.
 */
export class P2PNetwork {
  private host: Libp2p<{ pubsub: GossipSub }> | undefined;
  private readonly topics: Topics;
  /** Peers that passed the status handshake, with their last status. */
  private readonly peers = new Map<string, Status>();
  private readonly penalties = new Map<string, number>();
  private readonly banned = new Map<string, number>();
  /** Blocks from peers imported since the start, by how they came. */
  private readonly imported = { gossip: 0, range: 0 };
  /** Hashes of transactions being admitted from peers: gossip relays them, they are not announced again. */
  private readonly fromPeers = new Set<string>();
  /** Transactions of this node's clients waiting to go out in one gossip message, and their bytes. */
  private outbox: Uint8Array[] = [];
  private outboxBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Peers cut off by `test_setDeniedPeers` (test only): never dialled, never accepted. */
  private denied = new Set<string>();
  private readonly received = new Set<string>();
  /** Peers asked for their status recently because a gossiped block was ahead of this node. */
  private readonly recentlyAsked = new Map<string, number>();
  private readonly sync: RangeSync;
  private readonly forkChoice: ForkChoice;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly deps: P2PNetworkDeps) {
    this.topics = topicsFor(deps.chain.genesis.hash());
    this.forkChoice = new ForkChoice(deps.chain, deps.verifier);
    this.sync = new RangeSync(
      deps.chain,
      {
        heads: () => new Map([...this.peers].map(([id, status]) => [id, status.head])),
        fetch: (peer, from, count) => this.fetchRange(peer, from, count),
        importBlock: (block, peer) => this.importBlock(block, peer, "range"),
        penalize: (peer, points, reason) => this.penalize(peer, points, reason),
      },
      deps.log.child({ module: "sync" }),
    );
  }

  /** This node's peer id, once started. */
  get peerId(): string {
    return this.host?.peerId.toString() ?? "";
  }

  /** The addresses peers can dial, with this node's peer id, once started. */
  get multiaddrs(): string[] {
    return this.host?.getMultiaddrs().map((a) => a.toString()) ?? [];
  }

  /** Connected peers that passed the status handshake. */
  get peerCount(): number {
    return this.peers.size;
  }

  /** True while the host listens for peers. */
  get listening(): boolean {
    return this.host !== undefined && this.host.getMultiaddrs().length > 0;
  }

  /** Blocks from peers verified and imported since the start, by how they came (gossip or range sync). */
  get importedBlocks(): { readonly gossip: number; readonly range: number } {
    return { ...this.imported };
  }

  /** True while blocks are being fetched from peers. */
  get syncing(): boolean {
    return this.sync.syncing;
  }

  /**
   * Whether this node may seal on its head: not while it syncs or a peer announces a higher head,
   * and, when it has bootnodes, not before it has met a peer (a restarted validator would otherwise
   * seal on its stale head).
   */
  readyToPropose(): boolean {
    if (this.deps.settings.bootnodes.length > 0 && this.peers.size === 0) return false;
    return !this.sync.behind;
  }

  /**
   * TEST ONLY (`--test.peer-deny`, `test_setDeniedPeers`): from now on this node neither dials nor
   * accepts the peers with these ids, and closes its connections to them; an empty list lifts it.
   * Returns how many connections were closed.
   */
  async setDeniedPeers(peerIds: readonly string[]): Promise<number> {
    this.denied = new Set(peerIds);
    const host = this.host;
    if (!host) return 0;
    const cut = host.getPeers().filter((peer) => this.denied.has(peer.toString()));
    for (const peer of cut) this.peers.delete(peer.toString());
    await Promise.all(cut.map((peer) => host.hangUp(peer).catch(() => {})));
    if (this.denied.size === 0) this.dialBootnodes();
    return cut.length;
  }

  /** The last status of every handshaken peer, by peer id. */
  peerStatuses(): ReadonlyMap<string, Status> {
    return this.peers;
  }

  /** Starts the host, listens, subscribes to the chain's topics and dials the bootnodes. */
  async start(): Promise<void> {
    const { settings, log } = this.deps;
    const identity = await loadP2PIdentity(this.deps.datadir);
    const topics = [this.topics.transactions, this.topics.blocks, this.topics.votes];
    const topicScore = createTopicScoreParams({
      topicWeight: 1,
      timeInMeshWeight: 0,
      firstMessageDeliveriesWeight: 0,
      meshMessageDeliveriesWeight: 0,
      meshFailurePenaltyWeight: 0,
      invalidMessageDeliveriesWeight: -10,
      invalidMessageDeliveriesDecay: 0.9,
    });
    const host = (await createLibp2p({
      privateKey: identity.privateKey,
      addresses: { listen: [`/ip4/${settings.addr}/tcp/${settings.port}`] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      connectionManager: { maxConnections: settings.maxPeers },
      connectionGater: {
        denyDialPeer: (peer: PeerId) => this.refuses(peer.toString()),
        denyInboundEncryptedConnection: (peer: PeerId) => this.refuses(peer.toString()),
      },
      services: {
        identify: identify(),
        ping: ping(),
        pubsub: gossipsub({
          emitSelf: false,
          globalSignaturePolicy: "StrictNoSign",
          msgIdFn: (message) => keccak256(message.data),
          asyncValidation: true,
          allowPublishToZeroTopicPeers: true,
          ignoreDuplicatePublishError: true,
          allowedTopics: topics,
          maxInboundDataLength: MAX_BLOCK_BYTES + 64 * 1024,
          scoreParams: createPeerScoreParams({
            topics: {
              [this.topics.transactions]: topicScore,
              [this.topics.blocks]: topicScore,
              [this.topics.votes]: topicScore,
            },
            appSpecificScore: (peer) => -(this.penalties.get(peer) ?? 0),
            appSpecificWeight: 1,
            // Validators of one operator often share an address; colocation says nothing here.
            IPColocationFactorWeight: 0,
          }),
          scoreThresholds: {
            gossipThreshold: -10,
            publishThreshold: -50,
            graylistThreshold: DISCONNECT_SCORE,
            acceptPXThreshold: 100,
            opportunisticGraftThreshold: 5,
          },
        }),
      },
    })) as unknown as Libp2p<{ pubsub: GossipSub }>;
    this.host = host;
    await host.handle(
      PROTOCOLS.status,
      ({ stream, connection }) => this.answerStatus(stream, connection.remotePeer),
      {
        maxInboundStreams: MAX_INBOUND_STREAMS,
      },
    );
    await host.handle(
      PROTOCOLS.blocksByRange,
      ({ stream, connection }) => this.answerRange(stream, connection.remotePeer),
      { maxInboundStreams: MAX_INBOUND_STREAMS },
    );
    await host.handle(
      PROTOCOLS.transactions,
      ({ stream, connection }) => this.receiveTransactions(stream, connection.remotePeer),
      { maxInboundStreams: MAX_INBOUND_STREAMS },
    );
    host.addEventListener("peer:connect", (event) => void this.handshake(event.detail));
    host.addEventListener("peer:disconnect", (event) => {
      this.peers.delete(event.detail.toString());
    });
    const pubsub = host.services.pubsub;
    for (const topic of topics) pubsub.subscribe(topic);
    pubsub.addEventListener("gossipsub:message", (event) => void this.onGossip(event.detail));
    this.unsubscribe.push(
      this.deps.chain.events.on("newHead", ({ block }) => this.announceBlock(block)),
      this.deps.chain.events.on("pendingTransaction", (tx) => this.queueTransaction(tx)),
    );
    const finality = this.deps.finality;
    if (finality)
      this.unsubscribe.push(
        finality.events.on("vote", (vote) => this.publish(this.topics.votes, encodeVote(vote))),
      );
    this.every(STATUS_INTERVAL_MS, () => {
      for (const peer of host.getPeers()) void this.handshake(peer);
    });
    this.every(REDIAL_INTERVAL_MS, () => this.dialBootnodes());
    this.every(SCORE_CHECK_MS, () => this.enforceScores());
    this.dialBootnodes();
    log.info({ peerId: identity.peerId, addrs: this.multiaddrs }, "p2p listening");
  }

  /** Closes every connection and the host. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.flushTimer);
    for (const off of this.unsubscribe) off();
    await this.sync.stop();
    await this.host?.stop();
  }

  /** Connects to the peer at `address` (a multiaddr) now, as a bootnode would be. */
  async dial(address: string): Promise<void> {
    await this.host?.dial(multiaddr(address), { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  }

  /** Starts a sync round now (tests and tools); resolves when it ends. */
  syncNow(): Promise<void> {
    return this.sync.trigger();
  }

  private every(ms: number, fn: () => void): void {
    this.timers.push(setInterval(fn, ms));
  }

  private status(): Status {
    const { chain, chainId } = this.deps;
    return {
      chainId,
      genesis: bytesToHex(chain.genesis.hash()),
      head: refOf(chain.head),
      finalized: refOf(chain.finalized),
    };
  }

  /** Why a peer with `status` cannot be on this node's chain, or undefined when it can. */
  private mismatch(status: Status): string | undefined {
    const ours = this.status();
    if (status.chainId !== ours.chainId) return `network ${status.chainId}, ours is ${ours.chainId}`;
    if (status.genesis !== ours.genesis) return `genesis ${status.genesis}, ours is ${ours.genesis}`;
    return undefined;
  }

  /** Exchanges statuses with `peer` (outbound). */
  private async handshake(peer: PeerId): Promise<void> {
    const host = this.host;
    if (!host || this.stopped) return;
    try {
      const stream = await host.dialProtocol(peer, PROTOCOLS.status, {
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await writeFrames(stream, [encodeStatus(this.status())]);
      const theirs = decodeStatus(await readOneFrame(stream, MAX_STATUS_BYTES, REQUEST_TIMEOUT_MS));
      await this.accept(peer, theirs);
    } catch (error) {
      if (this.stopped) return;
      const id = peer.toString();
      if (error instanceof WireError) this.penalize(id, MALFORMED_PENALTY, `bad status: ${error.message}`);
      if (this.peers.has(id)) {
        this.deps.log.debug({ peer: id, err: error }, "status exchange failed");
        return;
      }
      // A peer that never completes the handshake is not a Strata peer of this chain.
      this.deps.log.warn(
        { peer: id, reason: (error as Error).message },
        "dropping peer: no status handshake",
      );
      await this.host?.hangUp(peer).catch(() => {});
    }
  }

  /** Answers a peer's status request with this node's status. */
  private async answerStatus(stream: Stream, peer: PeerId): Promise<void> {
    try {
      const theirs = decodeStatus(await readOneFrame(stream, MAX_STATUS_BYTES, REQUEST_TIMEOUT_MS));
      await writeFrames(stream, [encodeStatus(this.status())]);
      await this.accept(peer, theirs);
    } catch (error) {
      stream.abort(error as Error);
      // Malformed, oversized or missing: a peer that cannot state its status costs score.
      this.penalize(peer.toString(), MALFORMED_PENALTY, `bad status request: ${(error as Error).message}`);
    }
  }

  private async accept(peer: PeerId, status: Status): Promise<void> {
    const id = peer.toString();
    const reason = this.mismatch(status);
    if (reason) {
      this.deps.log.warn({ peer: id, reason }, `dropping peer on another chain: ${reason}`);
      this.peers.delete(id);
      await this.host?.hangUp(peer).catch(() => {});
      return;
    }
    const known = this.peers.has(id);
    this.peers.set(id, status);
    if (!known) this.deps.log.info({ peer: id, head: Number(status.head.number) }, "peer joined");
    // A head this node lacks: ahead of it, or on another branch that fork choice must weigh.
    if (!this.deps.chain.store.blockByHash(hexToBytes(status.head.hash as `0x${string}`)))
      void this.sync.trigger();
  }

  /** Serves a blocks-by-range request: canonical blocks in order, stopping at the head or the byte limit. */
  private async answerRange(stream: Stream, peer: PeerId): Promise<void> {
    try {
      const request = decodeRangeRequest(
        await readOneFrame(stream, MAX_RANGE_REQUEST_BYTES, REQUEST_TIMEOUT_MS),
      );
      const chain = this.deps.chain;
      function* blocks(): Generator<Uint8Array> {
        let bytes = 0;
        for (let n = request.from; n < request.from + BigInt(request.count); n++) {
          const block = chain.blockByNumber(n);
          if (!block) return;
          const raw = block.serialize();
          bytes += raw.length;
          if (bytes > MAX_RANGE_RESPONSE_BYTES && n > request.from) return;
          yield raw;
        }
      }
      await writeFrames(stream, blocks());
    } catch (error) {
      stream.abort(error as Error);
      this.penalize(peer.toString(), MALFORMED_PENALTY, `bad range request: ${(error as Error).message}`);
    }
  }

  /** Asks `peer` for `count` blocks from `from`; checks sizes, order and count of the answer. */
  private async fetchRange(peer: string, from: bigint, count: number): Promise<Block[]> {
    const host = this.host;
    if (!host) throw new Error("p2p stopped");
    const stream = await host.dialProtocol(peerIdFromString(peer), PROTOCOLS.blocksByRange, {
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await writeFrames(stream, [encodeRangeRequest({ from, count })]);
    const blocks: Block[] = [];
    let bytes = 0;
    for await (const frame of readFrames(stream, MAX_BLOCK_BYTES, REQUEST_TIMEOUT_MS)) {
      bytes += frame.length;
      if (blocks.length >= count || bytes > MAX_RANGE_RESPONSE_BYTES) {
        stream.abort(new Error("answer exceeds the request"));
        throw new WireError("answer exceeds the request");
      }
      const block = this.decodeBlock(frame);
      if (!block || block.header.number !== from + BigInt(blocks.length)) {
        stream.abort(new Error("bad block in answer"));
        throw new WireError(`undecodable or out-of-order block in the answer from ${from}`);
      }
      blocks.push(block);
    }
    return blocks;
  }

  private decodeBlock(bytes: Uint8Array): Block | undefined {
    try {
      return createBlockFromRLP(bytes, {
        common: this.deps.chain.common,
        setHardfork: true,
        skipConsensusFormatValidation: this.deps.sealed,
      });
    } catch {
      return undefined;
    }
  }

  /**
   * Verifies and commits a block from a peer, between the producer's own builds: a child of the head
   * becomes the head; a block of a competing branch is stored and made canonical when fork choice
   * prefers its branch (a reorg: the pool takes back the dropped blocks' transactions).
   */
  private importBlock(block: Block, peer: string, source: "gossip" | "range"): Promise<ImportResult> {
    return this.deps.producer.exclusive(async () => {
      const result = await this.verifyAndCommit(block, peer);
      if (result === "imported") this.imported[source]++;
      return result;
    });
  }

  private async verifyAndCommit(block: Block, peer: string): Promise<ImportResult> {
    const { verifier, chain, pool, log } = this.deps;
    const extendsHead = equalsBytes(block.header.parentHash, chain.head.hash());
    const verdict = await verifier.verify(block, !extendsHead);
    const number = Number(block.header.number);
    if (!verdict.ok) {
      if (verdict.kind === "known") return "known";
      if (INVALID_KINDS.has(verdict.kind)) {
        log.warn(
          { peer, number, hash: bytesToHex(block.hash()), reason: verdict.reason },
          "block from peer rejected",
        );
        return "invalid";
      }
      log.debug({ peer, number, reason: verdict.reason }, "block from peer does not connect to this chain");
      return "diverged";
    }
    this.remember(bytesToHex(block.hash()));
    if (extendsHead) {
      await chain.commit(verdict.built);
      await pool.onNewHead(verdict.built, []);
      log.debug({ peer, number }, "block from peer imported");
      return "imported";
    }
    await chain.commitSide(verdict.built);
    const branch = await this.forkChoice.branchToAdopt(block);
    if (!branch) {
      log.debug({ peer, number }, "block of a competing branch stored");
      return "imported";
    }
    const reorg = await chain.reorg(branch);
    const head = reorg.added[reorg.added.length - 1]!;
    await pool.onNewHead(head, []);
    const kept = new Set(reorg.added.flatMap((h) => h.block.transactions.map((tx) => bytesToHex(tx.hash()))));
    const readmitted: Uint8Array[] = [];
    for (const { block: dropped } of reorg.removed) {
      for (const tx of dropped.transactions) {
        if (kept.has(bytesToHex(tx.hash()))) continue;
        if (
          await pool.add(tx).then(
            () => true,
            () => false,
          )
        ) {
          const raw = wireFormOf(tx);
          if (raw) readmitted.push(raw);
        }
      }
    }
    // Gossip has seen these already and would not carry them again: hand them to every peer.
    this.pushTransactions(readmitted);
    log.info(
      { peer, head: number, depth: reorg.removed.length, added: reorg.added.length },
      "reorganised to a heavier branch",
    );
    return "imported";
  }

  /** Sends raw transactions straight to every handshaken peer (transactions protocol). */
  private pushTransactions(raws: readonly Uint8Array[]): void {
    const host = this.host;
    if (!host || raws.length === 0) return;
    for (const peer of this.peers.keys()) {
      void (async () => {
        const stream = await host.dialProtocol(peerIdFromString(peer), PROTOCOLS.transactions, {
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await writeFrames(stream, raws.slice(0, MAX_PUSHED_TRANSACTIONS));
      })().catch((error: unknown) => this.deps.log.debug({ peer, err: error }, "transaction push failed"));
    }
  }

  /** Takes pushed transactions into the pool by its normal rules; garbage lowers the sender's score. */
  private async receiveTransactions(stream: Stream, peer: PeerId): Promise<void> {
    const from = peer.toString();
    let count = 0;
    try {
      // Frames as large as a blob transaction with its sidecar; decoding holds other types to maxTxBytes.
      const maxFrame = Math.max(this.deps.maxTxBytes, BLOB_TX_MAX_BYTES);
      for await (const raw of readFrames(stream, maxFrame, REQUEST_TIMEOUT_MS)) {
        if (++count > MAX_PUSHED_TRANSACTIONS) throw new WireError("too many transactions in one push");
        const tx = await this.decodeTransaction(raw);
        if (!tx) this.penalize(from, MALFORMED_PENALTY, "pushed an invalid transaction");
        else await this.addFromPeer(tx);
      }
    } catch (error) {
      stream.abort(error as Error);
      this.penalize(from, MALFORMED_PENALTY, `bad transaction push: ${(error as Error).message}`);
    }
  }

  private remember(hash: string): void {
    this.received.add(hash);
    if (this.received.size > RECEIVED_BLOCKS) this.received.delete(this.received.values().next().value!);
  }

  /** Publishes a block this node made (blocks received from peers travel on by gossip's own relay). */
  private announceBlock(block: Block): void {
    if (this.received.has(bytesToHex(block.hash()))) return;
    this.publish(this.topics.blocks, block.serialize());
  }

  private publish(topic: string, data: Uint8Array): void {
    this.host?.services.pubsub.publish(topic, data).catch((error: unknown) => {
      this.deps.log.debug({ err: error, topic }, "gossip publish failed");
    });
  }

  private async onGossip(message: GossipsubMessage): Promise<void> {
    const { msgId, propagationSource, msg } = message;
    const from = propagationSource.toString();
    let result: TopicValidatorResult;
    try {
      result =
        msg.topic === this.topics.transactions
          ? await this.validateTransactions(msg.data, from)
          : msg.topic === this.topics.blocks
            ? await this.validateBlock(msg.data, from)
            : msg.topic === this.topics.votes
              ? await this.validateVote(msg.data)
              : TopicValidatorResult.Reject;
    } catch (error) {
      this.deps.log.debug({ err: error, peer: from }, "gossip message failed validation");
      result = TopicValidatorResult.Ignore;
    }
    this.host?.services.pubsub.reportMessageValidationResult(msgId, from, result);
  }

  /** A gossiped finality vote: relayed once the gadget takes it (signature, voter, height, not a duplicate). */
  private async validateVote(data: Uint8Array): Promise<TopicValidatorResult> {
    const finality = this.deps.finality;
    if (!finality || data.length !== VOTE_LENGTH) return TopicValidatorResult.Reject;
    const vote = decodeVote(data);
    if (!vote) return TopicValidatorResult.Reject;
    const outcome = await finality.addVote(vote);
    if (outcome.status === "added") return TopicValidatorResult.Accept;
    return outcome.status === "rejected" ? TopicValidatorResult.Reject : TopicValidatorResult.Ignore;
  }

  /**
   * A gossiped batch of transactions: each admitted to the pool by its normal rules (their senders
   * recovered together); relayed when at least one was new, rejected when any one can never be valid.
   */
  private async validateTransactions(data: Uint8Array, from: string): Promise<TopicValidatorResult> {
    let raws: Uint8Array[];
    try {
      raws = decodeTransactionBatch(data, this.deps.maxTxBytes);
    } catch {
      return TopicValidatorResult.Reject;
    }
    const decoded = await Promise.all(raws.map((raw) => this.decodeTransaction(raw)));
    let added = 0;
    let known = 0;
    for (const tx of decoded) {
      if (!tx) return TopicValidatorResult.Reject;
      const outcome = await this.addFromPeer(tx);
      if (outcome === "added") added++;
      else if (outcome === "known") known++;
    }
    if (added > 0) return TopicValidatorResult.Accept;
    if (known === decoded.length) this.penalize(from, DUPLICATE_TX_PENALTY, "duplicate transactions");
    return TopicValidatorResult.Ignore;
  }

  /** A raw transaction from a peer, decoded with its sender recovered; undefined when it can never be valid. */
  private decodeTransaction(raw: Uint8Array): Promise<TypedTransaction | undefined> {
    const { chain, maxTxBytes, senderRecovery } = this.deps;
    return decodeRawTransaction(raw, chain.common, maxTxBytes, senderRecovery).catch(() => undefined);
  }

  /** Adds a transaction from a peer to the pool (gossip carries it on: it is not announced again). */
  private async addFromPeer(tx: TypedTransaction): Promise<"added" | "known" | "refused"> {
    const hash = bytesToHex(tx.hash());
    this.fromPeers.add(hash);
    try {
      await this.deps.pool.add(tx);
      return "added";
    } catch (error) {
      return (error as Error).message === "already known" ? "known" : "refused";
    } finally {
      this.fromPeers.delete(hash);
    }
  }

  /**
   * Announces a transaction this node admitted from a client (or took back after a reorg): it joins
   * the batch being filled, sent as one gossip message once full or {@link GOSSIP_BATCH_DELAY_MS} later.
   */
  private queueTransaction(tx: TypedTransaction): void {
    if (this.fromPeers.has(bytesToHex(tx.hash()))) return;
    const raw = wireFormOf(tx);
    if (!raw) return;
    this.outbox.push(raw);
    this.outboxBytes += raw.length;
    if (this.outbox.length >= MAX_GOSSIP_TRANSACTIONS || this.outboxBytes >= GOSSIP_BATCH_BYTES)
      this.flushTransactions();
    else this.flushTimer ??= setTimeout(() => this.flushTransactions(), GOSSIP_BATCH_DELAY_MS);
  }

  private flushTransactions(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.outbox.length === 0) return;
    this.publish(this.topics.transactions, encodeTransactionBatch(this.outbox));
    this.outbox = [];
    this.outboxBytes = 0;
  }

  /**
   * A gossiped block: relayed once its header, seal and schedule check out on a known parent, then
   * imported after re-execution. A block ahead of this node makes it ask the sender's status (and
   * sync); one of a competing branch is relayed and imported the same way, and fork choice decides.
   */
  private async validateBlock(data: Uint8Array, from: string): Promise<TopicValidatorResult> {
    const { chain, verifier, log } = this.deps;
    if (data.length > MAX_BLOCK_BYTES) return TopicValidatorResult.Reject;
    const block = this.decodeBlock(data);
    if (!block) return TopicValidatorResult.Reject;
    // Ahead of this node's clock, or of its head where that runs ahead of the clock (dev chains).
    const now = BigInt(Math.floor(Date.now() / 1000));
    const headTime = chain.head.header.timestamp;
    if (block.header.timestamp > (headTime > now ? headTime : now) + MAX_FUTURE_SECONDS) {
      log.warn({ peer: from, number: Number(block.header.number) }, "block from the future rejected");
      return TopicValidatorResult.Reject;
    }
    if (chain.store.blockByHash(block.hash())) return TopicValidatorResult.Ignore;
    const head = chain.head.header.number;
    if (block.header.number > head + 1n) {
      this.askStatus(from);
      return TopicValidatorResult.Ignore;
    }
    if (block.header.number + BigInt(MAX_REORG_DEPTH) <= head) return TopicValidatorResult.Ignore;
    const failure = await verifier.precheck(block);
    if (failure && !failure.ok) {
      if (failure.kind === "unknown-parent") {
        this.askStatus(from);
        return TopicValidatorResult.Ignore;
      }
      log.warn(
        { peer: from, number: Number(block.header.number), reason: failure.reason },
        "gossiped block rejected",
      );
      return TopicValidatorResult.Reject;
    }
    void this.importBlock(block, from, "gossip").then((result) => {
      if (result === "invalid")
        this.penalize(from, INVALID_BLOCK_PENALTY, "relayed a block that failed re-execution");
      if (result === "diverged") this.askStatus(from);
    });
    return TopicValidatorResult.Accept;
  }

  /** Refreshes `peer`'s status (at most every few seconds per peer), which starts a sync when it is ahead. */
  private askStatus(peer: string): void {
    const now = Date.now();
    if ((this.recentlyAsked.get(peer) ?? 0) > now - 2_000) return;
    this.recentlyAsked.set(peer, now);
    if (this.recentlyAsked.size > 1024) this.recentlyAsked.clear();
    void this.handshake(peerIdFromString(peer));
  }

  private penalize(peer: string, points: number, reason: string): void {
    this.penalties.set(peer, (this.penalties.get(peer) ?? 0) + points);
    this.deps.log.debug({ peer, points, reason }, "peer penalized");
  }

  private refuses(peer: string): boolean {
    return this.denied.has(peer) || this.isBanned(peer);
  }

  private isBanned(peer: string): boolean {
    const until = this.banned.get(peer);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.banned.delete(peer);
    return false;
  }

  /** Decays application penalties and disconnects (and bans) peers whose score fell too low. */
  private enforceScores(): void {
    const host = this.host;
    if (!host) return;
    for (const [peer, points] of this.penalties) {
      if (points < 0.1) this.penalties.delete(peer);
      else this.penalties.set(peer, points * PENALTY_DECAY);
    }
    for (const peer of host.getPeers()) {
      const id = peer.toString();
      // The gossipsub score holds the application penalty for peers on gossip; others have only the penalty.
      const score = Math.min(host.services.pubsub.getScore(id), -(this.penalties.get(id) ?? 0));
      if (score >= DISCONNECT_SCORE) continue;
      this.deps.log.warn({ peer: id, score }, "disconnecting peer: score below the threshold");
      this.banned.set(id, Date.now() + BAN_MS);
      this.peers.delete(id);
      void host.hangUp(peer).catch(() => {});
    }
  }

  private dialBootnodes(): void {
    const host = this.host;
    if (!host || this.stopped) return;
    for (const address of this.deps.settings.bootnodes) {
      let target: Multiaddr;
      try {
        target = multiaddr(address);
      } catch {
        continue;
      }
      const peer = target.getPeerId();
      if (
        peer !== null &&
        (peer === this.peerId ||
          this.denied.has(peer) ||
          host.getConnections(peerIdFromString(peer)).length > 0)
      )
        continue;
      if (peer === null && host.getConnections().some((c) => c.remoteAddr.equals(target))) continue;
      host.dial(target, { signal: AbortSignal.timeout(REDIAL_INTERVAL_MS) }).catch((error: unknown) => {
        this.deps.log.debug({ bootnode: address, err: error }, "bootnode unreachable");
      });
    }
  }
}
