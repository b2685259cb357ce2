/**
 * Solidity of the dApp test contracts: OpenZeppelin's ERC20, ERC20Votes and Governor as published
 * (`@openzeppelin/contracts`), and thin drivers of the published Uniswap v2 and v3 pools (the role
 * their periphery routers play: pull the input token, call the pool, pay its callbacks).
 */
export const DAPP_SOURCES: Readonly<Record<string, string>> = {
  "Tokens.sol": `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {ERC20Votes} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Votes.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";

contract PlainToken is ERC20 {
    constructor(string memory symbol, uint256 supply) ERC20(symbol, symbol) {
        _mint(msg.sender, supply);
    }
}

contract VotesToken is ERC20, ERC20Permit, ERC20Votes {
    constructor(uint256 supply) ERC20("Votes", "VOTE") ERC20Permit("Votes") {
        _mint(msg.sender, supply);
    }

    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Votes) {
        super._update(from, to, value);
    }

    function nonces(address owner) public view override(ERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }
}
`,
  "TestGovernor.sol": `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
import {Governor} from "@openzeppelin/contracts/governance/Governor.sol";
import {GovernorSettings} from "@openzeppelin/contracts/governance/extensions/GovernorSettings.sol";
import {GovernorCountingSimple} from "@openzeppelin/contracts/governance/extensions/GovernorCountingSimple.sol";
import {GovernorVotes} from "@openzeppelin/contracts/governance/extensions/GovernorVotes.sol";
import {IVotes} from "@openzeppelin/contracts/governance/utils/IVotes.sol";

/** Voting opens one block after a proposal and lasts 50 blocks; no quorum. */
contract TestGovernor is Governor, GovernorSettings, GovernorCountingSimple, GovernorVotes {
    constructor(IVotes token) Governor("TestGovernor") GovernorSettings(1, 50, 0) GovernorVotes(token) {}

    function quorum(uint256) public pure override returns (uint256) {
        return 0;
    }

    function votingDelay() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.votingDelay();
    }

    function votingPeriod() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.votingPeriod();
    }

    function proposalThreshold() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.proposalThreshold();
    }
}
`,
  "PoolDrivers.sol": `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IERC20Like {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

interface IUniswapV2PairLike {
    function token0() external view returns (address);
    function getReserves() external view returns (uint112, uint112, uint32);
    function mint(address to) external returns (uint256);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}

interface IUniswapV3PoolLike {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external
        returns (uint256, uint256);
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data)
        external
        returns (int256, int256);
}

/** Adds liquidity to and swaps exact input on a Uniswap v2 pair, as the v2 router does. */
contract V2Driver {
    function addLiquidity(address pair, address tokenA, address tokenB, uint256 amountA, uint256 amountB) external {
        IERC20Like(tokenA).transferFrom(msg.sender, pair, amountA);
        IERC20Like(tokenB).transferFrom(msg.sender, pair, amountB);
        IUniswapV2PairLike(pair).mint(msg.sender);
    }

    function swapExactIn(address pair, address tokenIn, uint256 amountIn) external returns (uint256 amountOut) {
        (uint112 reserve0, uint112 reserve1,) = IUniswapV2PairLike(pair).getReserves();
        bool zeroIn = tokenIn == IUniswapV2PairLike(pair).token0();
        (uint256 reserveIn, uint256 reserveOut) = zeroIn ? (reserve0, reserve1) : (reserve1, reserve0);
        uint256 withFee = amountIn * 997;
        amountOut = (withFee * reserveOut) / (reserveIn * 1000 + withFee);
        IERC20Like(tokenIn).transferFrom(msg.sender, pair, amountIn);
        IUniswapV2PairLike(pair).swap(zeroIn ? 0 : amountOut, zeroIn ? amountOut : 0, msg.sender, "");
    }
}

/** Mints a position in and swaps exact input on a Uniswap v3 pool, paying its callbacks from the caller. */
contract V3Driver {
    uint160 internal constant MIN_SQRT_RATIO = 4295128739;
    uint160 internal constant MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342;

    function mint(address pool, int24 tickLower, int24 tickUpper, uint128 liquidity) external {
        IUniswapV3PoolLike(pool).mint(msg.sender, tickLower, tickUpper, liquidity, abi.encode(msg.sender));
    }

    function swapExactIn(address pool, bool zeroForOne, uint256 amountIn) external {
        IUniswapV3PoolLike(pool).swap(
            msg.sender,
            zeroForOne,
            int256(amountIn),
            zeroForOne ? MIN_SQRT_RATIO + 1 : MAX_SQRT_RATIO - 1,
            abi.encode(msg.sender)
        );
    }

    function uniswapV3MintCallback(uint256 amount0, uint256 amount1, bytes calldata data) external {
        pay(msg.sender, amount0, amount1, data);
    }

    function uniswapV3SwapCallback(int256 amount0, int256 amount1, bytes calldata data) external {
        pay(msg.sender, amount0 > 0 ? uint256(amount0) : 0, amount1 > 0 ? uint256(amount1) : 0, data);
    }

    function pay(address pool, uint256 amount0, uint256 amount1, bytes calldata data) internal {
        address payer = abi.decode(data, (address));
        if (amount0 > 0) IERC20Like(IUniswapV3PoolLike(pool).token0()).transferFrom(payer, pool, amount0);
        if (amount1 > 0) IERC20Like(IUniswapV3PoolLike(pool).token1()).transferFrom(payer, pool, amount1);
    }
}
`,
};
