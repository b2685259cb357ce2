import type { Block } from "@ethereumjs/block";
import type { BlockSelector } from "@strata/protocol";
import type { Chain } from "../chain/chain.js";
import type { NodeConfig } from "../config/node-config.js";
import type { FinalityGadget } from "../consensus/finality.js";
import type { SenderRecovery } from "../crypto/sender-recovery.js";
import { NotFoundError } from "../errors/domain-errors.js";
import type { CallExecutor } from "../execution/call/call-executor.js";
import type { HeavyExecution } from "../execution/worker/heavy-execution.js";
import type { FeeOracle } from "../fees/fee-oracle.js";
import type { TransactionForwarder } from "../follower/forwarding.js";
import type { DePINNodeService } from "../modules/depin/depin-nodes.js";
import type { PredictionService } from "../modules/oracle/prediction-service.js";
import type { StakingService } from "../modules/staking/staking-service.js";
import type { BlockProducer } from "../producer/block-producer.js";
import type { DevSnapshots } from "../producer/dev-snapshots.js";
import type { PendingBlocks } from "../producer/pending-block.js";
import type { TransactionFiller } from "../transactions/transaction-filler.js";
import type { TxPool } from "../txpool/tx-pool.js";
import type { FilterManager } from "./filters/filter-manager.js";
import type { SubscriptionManager } from "./subscriptions/subscription-manager.js";

/** What RPC handlers may use: the node's services. Handlers hold no state of their own. */
export interface RpcServices {
  readonly config: NodeConfig;
  readonly chain: Chain;
  readonly pool: TxPool;
  readonly producer: BlockProducer;
  /** Snapshots, revert and reset of a development chain (`evm_snapshot`, `evm_revert`, `anvil_reset`). */
  readonly snapshots: DevSnapshots;
  /** The block the node would build next (`pending`). */
  readonly pending: PendingBlocks;
  readonly calls: CallExecutor;
  /** Suggested fees and fee history (`eth_gasPrice`, `eth_maxPriorityFeePerGas`, `eth_feeHistory`). */
  readonly fees: FeeOracle;
  /** Transaction defaults of `eth_sendTransaction`, `eth_signTransaction` and `eth_fillTransaction`. */
  readonly filler: TransactionFiller;
  /** Worker threads recovering the senders of submitted transactions; undefined: recovered in-thread. */
  readonly senderRecovery: SenderRecovery | undefined;
  readonly subscriptions: SubscriptionManager;
  /** Polling filters of `eth_newFilter` and friends. */
  readonly filters: FilterManager;
  /** Accounts `eth_sendTransaction` may send from without a key (dev: `anvil_impersonateAccount`), lowercase. */
  readonly impersonated: Set<string>;
  /** Private keys of the unlocked development accounts (dev networks only), by lowercase address. */
  readonly devAccounts: ReadonlyMap<string, Uint8Array>;
  readonly clientVersion: string;
  /** The DePIN registry's nodes (`svc_getDePINNodes`). */
  readonly depin: DePINNodeService;
  /** Price predictions from the oracle's history (`svc_getAIPrediction`). */
  readonly predictions: PredictionService;
  /** Validators and stakes from the Staking contract (`svc_getValidators`, `svc_getStakingInfo`). */
  readonly staking: StakingService;
  /** The peer-to-peer network (`net_peerCount`, `net_listening`, `test_setDeniedPeers`); undefined when p2p is off. */
  readonly network?:
    | {
        readonly peerCount: number;
        readonly listening: boolean;
        setDeniedPeers(peerIds: readonly string[]): Promise<number>;
      }
    | undefined;
  /** Tracing (`debug_trace*`, `ots_*`), simulation and block building, on the execution workers. */
  readonly execution: HeavyExecution;
  /** Finality votes and double-sign evidence; undefined on a network without consensus. */
  readonly finality: FinalityGadget | undefined;
  /** A follower's way to the block producer for `eth_sendRawTransaction`; undefined: this node pools them. */
  readonly forwarder: TransactionForwarder | undefined;
}

/** Resolves a block selector to a canonical block, or undefined when there is none. */
export function findBlock(services: RpcServices, selector: BlockSelector): Block | undefined {
  const { chain } = services;
  if ("tag" in selector) {
    switch (selector.tag) {
      case "earliest":
        return chain.genesis;
      case "safe":
        return chain.safe;
      case "finalized":
        return chain.finalized;
      default:
        return chain.head;
    }
  }
  if ("number" in selector) return chain.blockByNumber(selector.number);
  const block = chain.blockByHash(Buffer.from(selector.hash.slice(2), "hex"));
  if (!block || !selector.requireCanonical) return block;
  const canonical = chain.store.canonicalHash(block.header.number);
  return canonical && Buffer.compare(canonical, block.hash()) === 0 ? block : undefined;
}

/** True when `selector` is the `pending` tag. */
export function isPending(selector: BlockSelector | undefined): boolean {
  return selector !== undefined && "tag" in selector && selector.tag === "pending";
}

/**
 * The block calls run in: the pending block for `pending` (and for no selector when
 * `defaultPending`, as `eth_estimateGas`), else as {@link requireBlock}.
 */
export function callBlock(
  services: RpcServices,
  selector: BlockSelector | undefined,
  defaultPending = false,
): Block | Promise<Block> {
  if (isPending(selector) || (selector === undefined && defaultPending)) return services.pending.callBlock();
  return requireBlock(services, selector);
}

/** Like {@link findBlock} but throws geth's "header not found" when there is no such block (state queries). */
export function requireBlock(services: RpcServices, selector: BlockSelector | undefined): Block {
  const block = findBlock(services, selector ?? { tag: "latest" });
  if (!block) throw new NotFoundError("header not found");
  return block;
}
