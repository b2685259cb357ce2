import solc from "solc";
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  parseGwei,
} from "viem";
import { devAccount0 } from "./accounts.js";
import type { ScenarioContext } from "./scenarios/types.js";
import { CHAIN_ID } from "./targets.js";

/** Tokens minted to the deployer (18 decimals). */
export const INITIAL_SUPPLY = 1_000_000n * 10n ** 18n;

/**
 * Paris keeps the bytecode free of PUSH0/MCOPY/transient storage, so the
 * benchmark only needs the opcodes every node in the comparison supports.
 */
const EVM_VERSION = "paris";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract BenchToken {
    string public constant name = "Bench Token";
    string public constant symbol = "BENCH";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(uint256 supply) {
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) internal {
        require(balanceOf[from] >= value, "balance");
        unchecked {
            balanceOf[from] -= value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
`;

export const ERC20_ABI = [
  {
    type: "function",
    name: "balanceOf",
    stateMutability: "view",
    inputs: [{ name: "", type: "address" }],
    outputs: [{ name: "", type: "uint256" }],
  },
] as const;

interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

export function compileErc20(): Compiled {
  const input = {
    language: "Solidity",
    sources: { "BenchToken.sol": { content: SOURCE } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: EVM_VERSION,
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join("\n")}`);
  const contract = output.contracts?.["BenchToken.sol"]?.BenchToken;
  if (!contract) throw new Error("solc: BenchToken missing from output");
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

/** Deploys the token from dev account 0 (derived from the dev mnemonic) and returns its address. */
export async function deployErc20(ctx: ScenarioContext): Promise<Hex> {
  let compiled = ctx.cache.get("erc20") as Compiled | undefined;
  if (!compiled) {
    const started = performance.now();
    compiled = compileErc20();
    ctx.cache.set("erc20", compiled);
    ctx.log(
      `compiled BenchToken with solc ${solc.version()} in ${Math.round(performance.now() - started)} ms`,
    );
  }
  const chain = defineChain({
    id: CHAIN_ID,
    name: "bench",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [ctx.node.url] } },
  });
  const transport = http(ctx.node.url, { batch: false, retryCount: 0 });
  const account = devAccount0();
  const wallet = createWalletClient({ account, chain, transport });
  const client = createPublicClient({ chain, transport });
  // Explicit gas and fees keep the deployment independent of estimation RPCs.
  const hash = await wallet.deployContract({
    abi: compiled.abi,
    bytecode: compiled.bytecode,
    args: [INITIAL_SUPPLY],
    gas: 3_000_000n,
    maxFeePerGas: parseGwei("100"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 60_000 });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`ERC-20 deployment failed (status ${receipt.status})`);
  }
  const balance = await client.readContract({
    address: receipt.contractAddress,
    abi: ERC20_ABI,
    functionName: "balanceOf",
    args: [account.address],
  });
  if (balance !== INITIAL_SUPPLY) throw new Error(`deployed token reports balance ${balance}`);
  ctx.log(`deployed BenchToken at ${receipt.contractAddress} (gas used ${receipt.gasUsed})`);
  return receipt.contractAddress;
}
