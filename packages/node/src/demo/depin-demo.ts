import {
  DEPIN_NODE_STATUS,
  DEPIN_REGISTRY_ADDRESS,
  type DePINNodeType,
  DePINRegistry,
} from "@strata/contracts";
import type { Logger } from "pino";
import { encodeFunctionData, type Hex, keccak256, type PublicClient, toHex } from "viem";
import type { DepinDemoSettings } from "../config/demo-settings.js";
import { type SignedCall, SignedSender } from "../transactions/signed-sender.js";

/** One simulated device of the demo. */
export interface DemoDevice {
  /** Short name; the node id is keccak256 of `strata-demo:<name>`. */
  readonly name: string;
  readonly type: DePINNodeType;
  readonly region: string;
  /** True for the device that stops sending heartbeats (so `inactive` and lower uptime appear). */
  readonly goesSilent?: boolean;
}

/** The demo's devices: one of each type, in different regions; the Tokyo sensor goes silent. */
export const DEMO_DEVICES: readonly DemoDevice[] = [
  { name: "gpu-frankfurt-1", type: "compute", region: "eu-central" },
  { name: "nas-virginia-1", type: "storage", region: "us-east" },
  { name: "hotspot-sao-paulo-1", type: "wireless", region: "sa-east" },
  { name: "air-quality-singapore-1", type: "sensor", region: "ap-southeast" },
  { name: "solar-sydney-1", type: "energy", region: "au-east" },
  { name: "weather-tokyo-1", type: "sensor", region: "ap-northeast", goesSilent: true },
];

/** The endpoint a demo device registers: it says the device is simulated. */
export const demoEndpoint = (device: DemoDevice) => `simulated://strata-demo/${device.name}`;

/** The registry id of a demo device. */
export const demoNodeId = (device: DemoDevice): Hex => keccak256(toHex(`strata-demo:${device.name}`));

/** Options of a {@link DepinDemo}. */
export interface DepinDemoOptions extends DepinDemoSettings {
  /** JSON-RPC URL of the node to send transactions to. */
  readonly rpcUrl: string;
  readonly logger: Logger;
  readonly devices?: readonly DemoDevice[];
}

/** Ample for a heartbeat that opens a new bucket (docs/depin.md). */
const HEARTBEAT_GAS = 150_000n;
const REGISTER_GAS = 400_000n;

const registry = { address: DEPIN_REGISTRY_ADDRESS, abi: DePINRegistry.abi } as const;

/** A call of the registry. */
const registryCall = (data: Hex, gas: bigint, value = 0n): SignedCall => ({
  to: DEPIN_REGISTRY_ADDRESS,
  data,
  gas,
  value,
});

/**
 * The dev network's DePIN demo: registers a handful of simulated devices from a dev account (each
 * labelled by its `simulated://` endpoint) with ordinary signed transactions, then sends one
 * heartbeat transaction per device in every heartbeat bucket. One device stops after
 * `silentAfterBlocks`, so its uptime falls below 100 % and, after the heartbeat window, it is
 * `inactive`. Devices registered by an earlier run are reused. It makes no block of its own beyond
 * one heartbeat round per bucket, so an idle chain stays idle.
 */
export class DepinDemo {
  private readonly sender: SignedSender;
  private readonly publicClient: PublicClient;
  private readonly devices: readonly DemoDevice[];
  /** Per device: the block it was registered in, and the bucket of its last heartbeat. */
  private readonly state = new Map<string, { registeredAt: bigint; lastBucket: bigint }>();
  private interval = 0n;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: DepinDemoOptions) {
    this.sender = new SignedSender(options.rpcUrl, options.privateKey, () => this.stopped);
    this.publicClient = this.sender.publicClient;
    this.devices = options.devices ?? DEMO_DEVICES;
  }

  /** The account that owns the demo devices. */
  get address(): Hex {
    return this.sender.address;
  }

  /** Registers the devices and starts the heartbeat loop in the background. */
  start(): void {
    this.running = this.run();
  }

  /** Stops: cuts the requests in flight and waits for the loop to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.sender.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      await this.register();
    } catch (error) {
      if (!this.stopped)
        this.options.logger.error({ err: (error as Error).message }, "DePIN demo registration failed");
      return;
    }
    await this.tick();
  }

  private async register(): Promise<void> {
    const config = await this.publicClient.readContract({ ...registry, functionName: "config" });
    this.interval = config.heartbeatInterval;
    const known = await this.registeredNodes();
    const fresh = this.devices.filter((device) => !known.has(demoNodeId(device)));
    await this.sendAll(
      fresh.map((device) =>
        registryCall(
          encodeFunctionData({
            ...registry,
            functionName: "register",
            args: [demoNodeId(device), device.type, device.region, demoEndpoint(device), this.address],
          }),
          REGISTER_GAS,
          config.minBond,
        ),
      ),
    );
    const nodes = await this.registeredNodes();
    for (const device of this.devices) {
      const registeredAt = nodes.get(demoNodeId(device));
      if (registeredAt !== undefined) this.state.set(device.name, { registeredAt, lastBucket: -1n });
    }
    this.options.logger.info(
      { devices: this.state.size, registered: fresh.length, owner: this.address },
      "DePIN demo devices registered",
    );
  }

  /** The registry's nodes that are registered (not deregistered), by id: the block of their registration. */
  private async registeredNodes(): Promise<Map<string, bigint>> {
    const count = await this.publicClient.readContract({ ...registry, functionName: "nodeCount" });
    const nodes =
      count === 0n
        ? []
        : await this.publicClient.readContract({ ...registry, functionName: "getNodes", args: [0n, count] });
    const registered = DEPIN_NODE_STATUS.indexOf("registered");
    return new Map(nodes.filter((n) => n.status === registered).map((n) => [n.id, n.registeredAt]));
  }

  /** One look at the head (a heartbeat round when a new bucket began), then the next after `pollMs`. */
  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.heartbeatIfDue();
    } catch (error) {
      if (!this.stopped)
        this.options.logger.warn({ err: (error as Error).message }, "DePIN demo heartbeat failed");
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, this.options.pollMs ?? 1000);
  }

  private async heartbeatIfDue(): Promise<void> {
    const head = await this.publicClient.getBlockNumber({ cacheTime: 0 });
    const bucket = head / this.interval;
    const due = this.devices.filter((device) => {
      const state = this.state.get(device.name);
      if (!state || state.lastBucket === bucket) return false;
      return !device.goesSilent || head < state.registeredAt + BigInt(this.options.silentAfterBlocks);
    });
    if (due.length === 0) return;
    await this.sendAll(
      due.map((device) =>
        registryCall(
          encodeFunctionData({ ...registry, functionName: "heartbeat", args: [demoNodeId(device)] }),
          HEARTBEAT_GAS,
        ),
      ),
    );
    for (const device of due) this.state.get(device.name)!.lastBucket = bucket;
  }

  /** Sends the calls in one round and logs those that reverted. */
  private async sendAll(calls: readonly SignedCall[]): Promise<void> {
    for (const hash of await this.sender.sendAll(calls))
      this.options.logger.warn({ hash }, "DePIN demo transaction reverted");
  }
}
