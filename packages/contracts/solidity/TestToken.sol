// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title A plain ERC-20 (18 decimals) for end-to-end tests, with deliberate failure paths:
/// a reason-string revert (`transfer` beyond the balance), a custom-error revert (`transferFrom`
/// beyond the allowance), `fail(reason)` and `boom()`.
contract TestToken {
    uint8 public constant decimals = 18;
    uint256 public constant BOOM_CODE = 42;

    string public name;
    string public symbol;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error InsufficientAllowance(uint256 available, uint256 required);
    error Boom(uint256 code);

    /// @notice Mints `initialSupply` to the deployer.
    constructor(string memory name_, string memory symbol_, uint256 initialSupply) {
        name = name_;
        symbol = symbol_;
        totalSupply = initialSupply;
        balanceOf[msg.sender] = initialSupply;
        emit Transfer(address(0), msg.sender, initialSupply);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 available = allowance[from][msg.sender];
        if (available != type(uint256).max) {
            if (available < amount) revert InsufficientAllowance(available, amount);
            allowance[from][msg.sender] = available - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    /// @notice Always reverts with `Error(reason)`.
    function fail(string calldata reason) external pure {
        revert(reason);
    }

    /// @notice Always reverts with the custom error `Boom(BOOM_CODE)`.
    function boom() external pure {
        revert Boom(BOOM_CODE);
    }

    function _transfer(address from, address to, uint256 amount) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = balanceOf[from];
        require(balance >= amount, "ERC20: transfer amount exceeds balance");
        unchecked {
            balanceOf[from] = balance - amount;
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }
}
