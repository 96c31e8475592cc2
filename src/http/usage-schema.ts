import { Type } from 'typebox';

/** A turn's tokens and estimated cost: in the job's turns and in an automation's runs. */
export const TurnUsage = Type.Object({
  inputTokens: Type.Integer(),
  outputTokens: Type.Integer(),
  cachedInputTokens: Type.Integer({
    minimum: 0,
    description:
      'Of inputTokens, those the provider reports as read from its prompt cache (0: none reported).',
  }),
  costUsd: Type.Union([
    Type.Number({
      minimum: 0,
      description:
        "Estimated cost in US dollars, from the price table when the turn's usage was recorded; null when its model is not in the table (unknown, not free).",
    }),
    Type.Null(),
  ]),
});
