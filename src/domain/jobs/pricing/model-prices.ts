import shipped from './model-prices.json' with { type: 'json' };

/** USD per million tokens of one model. */
export interface ModelPrice {
  input: number;
  /** Input tokens read from the provider's prompt cache; absent: priced as `input`. */
  cachedInput?: number;
  output: number;
}

/** Prices by `provider:model-id`. */
export type ModelPrices = ReadonlyMap<string, ModelPrice>;

/** Token counts of a turn, as the agent reports them. */
export interface PricedUsage {
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the prompt cache (0 or absent when none were reported). */
  cachedInputTokens?: number;
}

const MODEL_KEY = /^[a-z][a-z0-9-]*:.+$/;
const PRICE_FIELDS = ['input', 'cachedInput', 'output'] as const;

/** The price table that ships with Docwright (model-prices.json, with its sources and date). */
export function shippedModelPrices(): ModelPrices {
  const problems: string[] = [];
  const prices = parseModelPrices(shipped.prices, 'model-prices.json', problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return prices;
}

/**
 * Checks a `{ "provider:model-id": { input, output, cachedInput? } }` object (USD per million
 * tokens) and returns it as a table; every problem is pushed to `problems`, naming the model
 * and the field.
 */
export function parseModelPrices(
  value: unknown,
  source: string,
  problems: string[],
): Map<string, ModelPrice> {
  const prices = new Map<string, ModelPrice>();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${source} must be a JSON object of "provider:model-id": { "input": …, "output": … }`);
    return prices;
  }
  for (const [model, entry] of Object.entries(value)) {
    if (!MODEL_KEY.test(model)) {
      problems.push(`${source}: "${model}" must look like provider:model-id, e.g. openai:gpt-5`);
      continue;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${source}: "${model}" must be an object { "input": …, "output": …, "cachedInput"?: … }`);
      continue;
    }
    const fields = entry as Record<string, unknown>;
    let valid = true;
    for (const field of Object.keys(fields)) {
      if (!(PRICE_FIELDS as readonly string[]).includes(field)) {
        problems.push(`${source}: "${model}".${field} is not a price field (input, cachedInput, output)`);
        valid = false;
      }
    }
    for (const field of PRICE_FIELDS) {
      const price = fields[field];
      if (price === undefined && field === 'cachedInput') continue;
      if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
        problems.push(
          `${source}: "${model}".${field} must be a number of USD per million tokens, 0 or more (got ${JSON.stringify(price) ?? 'nothing'})`,
        );
        valid = false;
      }
    }
    if (!valid) continue;
    const price: ModelPrice = { input: fields.input as number, output: fields.output as number };
    if (typeof fields.cachedInput === 'number') price.cachedInput = fields.cachedInput;
    prices.set(model, price);
  }
  return prices;
}

/** A dated snapshot's suffix: `-2025-04-14` (OpenAI) or `-20250929` (Anthropic). */
const DATE_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * The price of a model: by its exact `provider:model-id`, else, for a dated snapshot, by the
 * id without its date (`openai:gpt-4.1-2025-04-14` → `openai:gpt-4.1`,
 * `anthropic:claude-sonnet-4-5-20250929` → `anthropic:claude-sonnet-4-5`). Null when neither
 * is in the table: the cost is then unknown, not zero.
 */
export function priceOf(prices: ModelPrices, model: string | null): ModelPrice | null {
  if (model === null) return null;
  return prices.get(model) ?? prices.get(model.replace(DATE_SUFFIX, '')) ?? null;
}

/** The estimated cost in USD, to the millionth of a dollar; null when the model has no price. */
export function estimateCostUsd(
  prices: ModelPrices,
  model: string | null,
  usage: PricedUsage,
): number | null {
  const price = priceOf(prices, model);
  if (price === null) return null;
  const cached = Math.min(Math.max(usage.cachedInputTokens ?? 0, 0), usage.inputTokens);
  const perMillion =
    (usage.inputTokens - cached) * price.input +
    cached * (price.cachedInput ?? price.input) +
    usage.outputTokens * price.output;
  return roundUsd(perMillion / 1_000_000);
}

/** USD rounded to the millionth, so sums of estimates do not show floating-point noise. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}

/** The shipped table with `overrides` laid over it, model by model. */
export function withOverrides(base: ModelPrices, overrides: ReadonlyMap<string, ModelPrice>): ModelPrices {
  return new Map([...base, ...overrides]);
}
