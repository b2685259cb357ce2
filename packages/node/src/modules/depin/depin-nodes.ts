import type { Block } from "@ethereumjs/block";
import { DEPIN_NODE_STATUS, DEPIN_REGISTRY_ADDRESS, DePINRegistry } from "@strata/contracts";
import type { DePINFilter, DePINNode } from "@strata/protocol";
import type { Address } from "viem";
import type { CallExecutor } from "../../execution/call/call-executor.js";
import { readContract } from "../read-contract.js";

/** Most nodes read from the registry per call. */
const PAGE = 200n;

/**
 * Lists the DePIN registry's nodes from contract state at a block. The whole registry is read once
 * per block (in pages) and kept until the next block is asked for, so paging through the result
 * costs one read.
 */
export class DePINNodeService {
  private cached: { hash: string; nodes: readonly DePINNode[] } | undefined;

  constructor(
    private readonly calls: CallExecutor,
    private readonly address: Address = DEPIN_REGISTRY_ADDRESS,
  ) {}

  /** The nodes matching `filter` at `block`, in registration order, paged by offset/limit. */
  async list(block: Block, filter: DePINFilter): Promise<DePINNode[]> {
    const owner = filter.owner?.toLowerCase();
    const region = filter.region?.toLowerCase();
    const matching = (await this.all(block)).filter(
      (n) =>
        (filter.status === "all" || n.status === filter.status) &&
        (filter.type === undefined || n.type === filter.type) &&
        (region === undefined || n.region.toLowerCase() === region) &&
        (owner === undefined || n.owner === owner),
    );
    return matching.slice(filter.offset, filter.offset + filter.limit);
  }

  private async all(block: Block): Promise<readonly DePINNode[]> {
    const hash = Buffer.from(block.hash()).toString("hex");
    if (this.cached?.hash === hash) return this.cached.nodes;
    const read = { address: this.address, abi: DePINRegistry.abi } as const;
    const count = await readContract(this.calls, block, { ...read, functionName: "nodeCount" });
    const nodes: DePINNode[] = [];
    for (let offset = 0n; offset < count; offset += PAGE) {
      const page = await readContract(this.calls, block, {
        ...read,
        functionName: "getNodes",
        args: [offset, PAGE],
      });
      for (const info of page) {
        // Withdrawn nodes have left the registry for good; deregistered ones still show (inactive).
        if (DEPIN_NODE_STATUS[info.status] === "withdrawn") continue;
        nodes.push(toView(info));
      }
    }
    this.cached = { hash, nodes };
    return nodes;
  }
}

type NodeInfo = {
  id: string;
  owner: string;
  nodeType: string;
  region: string;
  endpoint: string;
  bond: bigint;
  active: boolean;
  registeredAt: bigint;
  lastHeartbeatBlock: bigint;
  lastHeartbeatAt: bigint;
  heartbeatCount: bigint;
  uptimeBps: bigint;
};

function toView(info: NodeInfo): DePINNode {
  const beating = info.heartbeatCount > 0n;
  return {
    id: info.id,
    owner: info.owner.toLowerCase(),
    type: info.nodeType,
    region: info.region,
    endpoint: info.endpoint,
    stake: info.bond.toString(),
    registeredAt: hex(info.registeredAt),
    lastHeartbeat: beating ? hex(info.lastHeartbeatBlock) : null,
    lastHeartbeatAt: beating ? new Date(Number(info.lastHeartbeatAt) * 1000).toISOString() : null,
    uptime: (Number(info.uptimeBps) / 100).toFixed(2),
    status: info.active ? "active" : "inactive",
    rewards: "0",
  };
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}
