/** The time source of limits and health: milliseconds since the epoch. Tests inject their own. */
export type Clock = () => number;

/** The system clock. */
export const systemClock: Clock = () => Date.now();
