// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Base for system contracts whose block-processing hooks are called by the node itself.
/// @dev The node executes these calls with `msg.sender == SYSTEM_ADDRESS`, the same convention
/// EIP-4788 uses for the beacon roots contract. No key exists for this address, so no ordinary
/// transaction can reach the guarded functions.
abstract contract SystemCallable {
    address public constant SYSTEM_ADDRESS = 0xffffFFFfFFffffffffffffffFfFFFfffFFFfFFfE;

    error NotSystem(address caller);

    modifier onlySystem() {
        if (msg.sender != SYSTEM_ADDRESS) revert NotSystem(msg.sender);
        _;
    }
}
