import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
import shipped from '../../../src/domain/jobs/pricing/model-prices.json' with { type: 'json' };
import {
  estimateCostUsd,
  parseModelPrices,
  priceOf,
  shippedModelPrices,
} from '../../../src/domain/jobs/pricing/model-prices.ts';

const problemsOf = (env: Record<string, string>, cwd = '/srv') => {
  try {
    loadConfig(env, cwd);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('the shipped price table', () => {
  it('prices the models of the providers Docwright ships with, and says where each price came from', () => {
    const prices = shippedModelPrices();
    expect(prices.get('openai:gpt-4.1')).toEqual({ input: 2, cachedInput: 0.5, output: 8 });
    expect(prices.get('anthropic:claude-sonnet-4-5')).toEqual({ input: 3, cachedInput: 0.3, output: 15 });
    for (const model of prices.keys()) {
      const provider = model.split(':')[0] as keyof typeof shipped.sources;
      expect(shipped.sources[provider]?.url, model).toMatch(/^https:\/\//);
      expect(shipped.sources[provider]?.asOf, model).toMatch(/^\d{4}-\d{2}$/);
    }
    // The README's model examples have a price.
    expect(priceOf(prices, 'anthropic:claude-sonnet-4-5')).not.toBeNull();
    expect(priceOf(prices, 'openai:gpt-5')).not.toBeNull();
  });
});

describe('finding a model price', () => {
  const prices = shippedModelPrices();

  it('matches the exact provider:model-id', () => {
    expect(priceOf(prices, 'openai:gpt-4.1-mini')).toEqual({ input: 0.4, cachedInput: 0.1, output: 1.6 });
  });

  it('prices a dated snapshot as the model without its date (OpenAI and Anthropic styles)', () => {
    expect(priceOf(prices, 'openai:gpt-4.1-2025-04-14')).toBe(prices.get('openai:gpt-4.1'));
    expect(priceOf(prices, 'anthropic:claude-sonnet-4-5-20250929')).toBe(
      prices.get('anthropic:claude-sonnet-4-5'),
    );
  });

  it('does not guess beyond the date rule: other variants, other providers and no model are unknown', () => {
    expect(priceOf(prices, 'openai:gpt-4.1-turbo')).toBeNull();
    expect(priceOf(prices, 'openai:gpt-4.1-2025-04')).toBeNull();
    // The same model id behind an OpenAI-compatible server may be priced differently.
    expect(priceOf(prices, 'openai-compatible:gpt-4.1')).toBeNull();
    expect(priceOf(prices, null)).toBeNull();
    expect(priceOf(prices, 'openai:constructor')).toBeNull();
  });

  it('an exact entry wins over the date rule', () => {
    const table = new Map([
      ['openai:gpt-4.1', { input: 2, output: 8 }],
      ['openai:gpt-4.1-2025-04-14', { input: 1, output: 1 }],
    ]);
    expect(priceOf(table, 'openai:gpt-4.1-2025-04-14')).toEqual({ input: 1, output: 1 });
  });
});

describe('estimating a cost', () => {
  const table = new Map([
    ['openai:m', { input: 2, cachedInput: 0.5, output: 8 }],
    ['openai:no-cache-price', { input: 3, output: 15 }],
  ]);

  it('multiplies tokens by USD per million, cached input at its own price', () => {
    expect(estimateCostUsd(table, 'openai:m', { inputTokens: 1_000_000, outputTokens: 0 })).toBe(2);
    expect(
      estimateCostUsd(table, 'openai:m', {
        inputTokens: 10_000,
        outputTokens: 2_000,
        cachedInputTokens: 4_000,
      }),
    ).toBe((6_000 * 2 + 4_000 * 0.5 + 2_000 * 8) / 1e6);
    // No cached price: cached input costs as much as input.
    expect(
      estimateCostUsd(table, 'openai:no-cache-price', {
        inputTokens: 1_000,
        outputTokens: 0,
        cachedInputTokens: 1_000,
      }),
    ).toBe(0.003);
  });

  it('rounds to the millionth of a dollar', () => {
    expect(estimateCostUsd(table, 'openai:m', { inputTokens: 1, outputTokens: 1 })).toBe(0.00001);
    expect(estimateCostUsd(table, 'openai:m', { inputTokens: 3, outputTokens: 0 })).toBe(0.000006);
  });

  it('is null, not 0, for a model without a price', () => {
    expect(
      estimateCostUsd(table, 'openai-compatible:qwen3-coder', { inputTokens: 5, outputTokens: 5 }),
    ).toBeNull();
  });
});

describe('DOCWRIGHT_MODEL_PRICES', () => {
  it('adds and replaces models, inline or from a file, over the shipped table', () => {
    const inline = loadConfig({
      DOCWRIGHT_MODEL_PRICES:
        '{"openai-compatible:qwen3-coder": {"input": 0, "output": 0}, "openai:gpt-4.1": {"input": 1, "output": 4}}',
    });
    expect(inline.modelPrices.get('openai-compatible:qwen3-coder')).toEqual({ input: 0, output: 0 });
    expect(inline.modelPrices.get('openai:gpt-4.1')).toEqual({ input: 1, output: 4 });
    expect(inline.modelPrices.get('openai:gpt-5')).toEqual(shippedModelPrices().get('openai:gpt-5'));

    const dir = mkdtempSync(path.join(tmpdir(), 'docwright-prices-'));
    writeFileSync(
      path.join(dir, 'prices.json'),
      '{"anthropic:claude-x": {"input": 1, "cachedInput": 0.1, "output": 2}}',
    );
    const fromFile = loadConfig({ DOCWRIGHT_MODEL_PRICES: 'prices.json' }, dir);
    expect(fromFile.modelPrices.get('anthropic:claude-x')).toEqual({ input: 1, cachedInput: 0.1, output: 2 });
  });

  it('refuses a bad table, naming the model and the field', () => {
    expect(
      problemsOf({
        DOCWRIGHT_MODEL_PRICES:
          '{"openai:gpt-x": {"input": "1", "output": 2}, "openai:gpt-y": {"input": 1, "output": -2}, "gpt-z": {"input": 1, "output": 1}, "openai:gpt-w": {"input": 1, "output": 1, "cached": 1}}',
      }),
    ).toEqual([
      'DOCWRIGHT_MODEL_PRICES: "openai:gpt-x".input must be a number of USD per million tokens, 0 or more (got "1")',
      'DOCWRIGHT_MODEL_PRICES: "openai:gpt-y".output must be a number of USD per million tokens, 0 or more (got -2)',
      'DOCWRIGHT_MODEL_PRICES: "gpt-z" must look like provider:model-id, e.g. openai:gpt-5',
      'DOCWRIGHT_MODEL_PRICES: "openai:gpt-w".cached is not a price field (input, cachedInput, output)',
    ]);
    expect(problemsOf({ DOCWRIGHT_MODEL_PRICES: '{"openai:gpt-x": {"input": 1}}' })).toEqual([
      'DOCWRIGHT_MODEL_PRICES: "openai:gpt-x".output must be a number of USD per million tokens, 0 or more (got nothing)',
    ]);
    expect(problemsOf({ DOCWRIGHT_MODEL_PRICES: '{not json' })[0]).toMatch(
      /^DOCWRIGHT_MODEL_PRICES: the inline value is not valid JSON/,
    );
    expect(problemsOf({ DOCWRIGHT_MODEL_PRICES: 'missing.json' })[0]).toMatch(
      /^DOCWRIGHT_MODEL_PRICES: cannot read missing.json/,
    );
    expect(problemsOf({ DOCWRIGHT_MODEL_PRICES: '[1]' })[0]).toMatch(/cannot read \[1\]/);
  });

  it('parses an empty table as no change', () => {
    const problems: string[] = [];
    expect(parseModelPrices({}, 'x', problems).size).toBe(0);
    expect(problems).toEqual([]);
  });
});
