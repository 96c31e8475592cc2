/** Time source, injected so tests can move it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export const iso = (date: Date): string => date.toISOString();
