import { createCommonFromGethGenesis, type GethGenesis as EthereumjsGethGenesis } from "@ethereumjs/common";
import { describe, expect, it } from "vitest";
import { networkFromGenesis } from "../../import/datadir-network.js";
import { commonFromGethGenesis, createChainCommon } from "./common.js";

const BLOB_GAS = 131_072n;

/** A post-merge genesis with Osaka at 0 and two blob-parameter-only forks by timestamp. */
function bpoNetwork() {
  return networkFromGenesis(
    {
      config: {
        chainId: 7,
        homesteadBlock: 0,
        eip150Block: 0,
        eip155Block: 0,
        eip158Block: 0,
        byzantiumBlock: 0,
        constantinopleBlock: 0,
        petersburgBlock: 0,
        istanbulBlock: 0,
        berlinBlock: 0,
        londonBlock: 0,
        mergeNetsplitBlock: 0,
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
        osakaTime: 0,
        bpo1Time: 10,
        bpo2Time: 20,
        blobSchedule: {
          cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
          prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
          osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
          bpo1: { target: 7, max: 11, baseFeeUpdateFraction: 6000000 },
          bpo2: { target: 13, max: 19, baseFeeUpdateFraction: 9000000 },
        },
      },
      gasLimit: "0x1c9c380",
      alloc: {},
    },
    "bpo genesis",
  );
}

describe("chain rules from a geth genesis", () => {
  it("keeps the blob target and max of BPO forks that @ethereumjs/common 10.1.3 drops", async () => {
    const network = bpoNetwork();
    const genesis = network.genesis;
    // The defect being worked around: the stock Common cannot even answer for a BPO fork.
    const stock = createCommonFromGethGenesis(genesis as unknown as EthereumjsGethGenesis, {
      chain: "stock",
    });
    stock.setHardforkBy({ blockNumber: 1n, timestamp: 10n });
    expect(() => stock.getBlobGasSchedule()).toThrow("Missing parameter value for target");

    const common = await createChainCommon(network);
    const at = (timestamp: bigint) => {
      common.setHardforkBy({ blockNumber: 1n, timestamp });
      return { fork: common.hardfork(), schedule: common.getBlobGasSchedule() };
    };
    expect(at(5n)).toEqual({
      fork: "osaka",
      schedule: {
        targetBlobGasPerBlock: 6n * BLOB_GAS,
        maxBlobGasPerBlock: 9n * BLOB_GAS,
        blobGasPriceUpdateFraction: 5007716n,
      },
    });
    expect(at(10n)).toEqual({
      fork: "bpo1",
      schedule: {
        targetBlobGasPerBlock: 7n * BLOB_GAS,
        maxBlobGasPerBlock: 11n * BLOB_GAS,
        blobGasPriceUpdateFraction: 6000000n,
      },
    });
    expect(at(25n)).toEqual({
      fork: "bpo2",
      schedule: {
        targetBlobGasPerBlock: 13n * BLOB_GAS,
        maxBlobGasPerBlock: 19n * BLOB_GAS,
        blobGasPriceUpdateFraction: 9000000n,
      },
    });
  });

  it("schedules block-numbered and timestamped forks of the genesis", () => {
    const common = commonFromGethGenesis(
      networkFromGenesis(
        {
          config: {
            chainId: 9,
            homesteadBlock: 0,
            eip150Block: 3,
            eip155Block: 6,
            eip158Block: 6,
            byzantiumBlock: 9,
            londonBlock: 12,
            mergeNetsplitBlock: 15,
            terminalTotalDifficulty: 100,
            shanghaiTime: 300,
            cancunTime: 400,
          },
          gasLimit: "0x1c9c380",
          difficulty: "0x20000",
          alloc: {},
        },
        "forks",
      ).genesis,
      "forks",
    );
    const fork = (blockNumber: bigint, timestamp: bigint) => common.getHardforkBy({ blockNumber, timestamp });
    expect(fork(0n, 0n)).toBe("homestead");
    expect(fork(4n, 40n)).toBe("tangerineWhistle");
    expect(fork(13n, 130n)).toBe("london");
    expect(fork(15n, 150n)).toBe("mergeNetsplitBlock");
    expect(fork(20n, 300n)).toBe("shanghai");
    expect(fork(30n, 400n)).toBe("cancun");
  });
});
