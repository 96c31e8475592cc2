import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';

/**
 * Credentials and endpoints for the model providers, handed in from the configuration.
 * Keys are passed explicitly and never read from the environment here: the provider
 * packages would otherwise fall back to ANTHROPIC_API_KEY / OPENAI_API_KEY on their own.
 */
export interface ProviderKeys {
  anthropicApiKey?: string | null;
  /** Default https://api.anthropic.com/v1; set for a proxy or a test server. */
  anthropicBaseUrl?: string | null;
  openaiApiKey?: string | null;
  /** Default https://api.openai.com/v1; set for a proxy or a test server. */
  openaiBaseUrl?: string | null;
  /** Base URL of an OpenAI-compatible server, usually ending in /v1 (Ollama, vLLM, LM Studio, …). */
  openaiCompatibleBaseUrl?: string | null;
  /** Optional: many local servers need none. */
  openaiCompatibleApiKey?: string | null;
}

export const MODEL_PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export interface ModelSpec {
  provider: ModelProvider;
  modelId: string;
}

/** The setting that holds each provider's key, for error messages that say what to set. */
const KEY_SETTING: Record<ModelProvider, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': 'DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY',
};

/**
 * Splits `provider:model-id` at the first colon (model ids such as Ollama's `qwen3:8b`
 * contain colons of their own). Throws an Error that says what a valid value looks like.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(':');
  const provider = colon === -1 ? trimmed : trimmed.slice(0, colon);
  const modelId = colon === -1 ? '' : trimmed.slice(colon + 1).trim();
  if (!(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    throw new Error(
      `Unknown model provider "${provider}" in "${spec}": use ${MODEL_PROVIDERS.join(', ')} ` +
        '(for example anthropic:claude-sonnet-4-5 or openai-compatible:qwen3-coder).',
    );
  }
  if (modelId === '') {
    throw new Error(`Model "${spec}" names no model: write it as ${provider}:<model-id>.`);
  }
  return { provider: provider as ModelProvider, modelId };
}

/**
 * Turns `provider:model-id` into an AI SDK language model. Throws a clear Error when the
 * provider is unknown or its key (or, for openai-compatible, its base URL) is not set.
 */
export function createLanguageModel(spec: string, keys: ProviderKeys): LanguageModel {
  const { provider, modelId } = parseModelSpec(spec);
  switch (provider) {
    case 'anthropic': {
      const apiKey = present(keys.anthropicApiKey);
      if (apiKey === undefined) throw missingKey(spec, provider);
      const baseURL = present(keys.anthropicBaseUrl);
      return createAnthropic({
        apiKey,
        ...(baseURL ? { baseURL: checkedUrl(baseURL, 'DOCWRIGHT_ANTHROPIC_BASE_URL') } : {}),
      })(modelId);
    }
    case 'openai': {
      const apiKey = present(keys.openaiApiKey);
      if (apiKey === undefined) throw missingKey(spec, provider);
      const baseURL = present(keys.openaiBaseUrl);
      return createOpenAI({
        apiKey,
        ...(baseURL ? { baseURL: checkedUrl(baseURL, 'DOCWRIGHT_OPENAI_BASE_URL') } : {}),
      })(modelId);
    }
    case 'openai-compatible': {
      const baseURL = present(keys.openaiCompatibleBaseUrl);
      if (baseURL === undefined) {
        throw new Error(
          `Model "${spec}" needs the server's address: set DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL ` +
            '(for example http://localhost:11434/v1 for Ollama).',
        );
      }
      const apiKey = present(keys.openaiCompatibleApiKey);
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: checkedUrl(baseURL, 'DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL'),
        ...(apiKey ? { apiKey } : {}),
        // Without it streamed responses carry no token counts.
        includeUsage: true,
      })(modelId);
    }
  }
}

/** The setting a provider's key is read from, for messages that tell the operator what to fix. */
export function keySettingFor(provider: ModelProvider): string {
  return KEY_SETTING[provider];
}

function missingKey(spec: string, provider: ModelProvider): Error {
  return new Error(`Model "${spec}" needs an API key: set ${KEY_SETTING[provider]}.`);
}

function present(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function checkedUrl(url: string, setting: string): string {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new Error(`${setting} must be an http:// or https:// URL.`);
  }
  return url.replace(/\/+$/, '');
}
