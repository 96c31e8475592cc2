import { generateText } from 'ai';
import { afterEach, describe, expect, test } from 'vitest';
import { createLanguageModel, parseModelSpec } from '../../../src/integrations/models/create-model.ts';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('parseModelSpec', () => {
  test('splits at the first colon, so model ids may contain colons', () => {
    expect(parseModelSpec('anthropic:claude-sonnet-4-5')).toEqual({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
    });
    expect(parseModelSpec('openai-compatible:qwen3:8b')).toEqual({
      provider: 'openai-compatible',
      modelId: 'qwen3:8b',
    });
  });

  test('an unknown provider names the ones that exist', () => {
    expect(() => parseModelSpec('mistral:large')).toThrow(
      /Unknown model provider "mistral".*anthropic, openai, openai-compatible/,
    );
    expect(() => parseModelSpec('claude-sonnet-4-5')).toThrow(/Unknown model provider/);
  });

  test('a missing model id is refused', () => {
    expect(() => parseModelSpec('openai:')).toThrow(/names no model.*openai:<model-id>/);
  });
});

describe('createLanguageModel', () => {
  test('builds a model for each provider', () => {
    const keys = {
      anthropicApiKey: 'a',
      openaiApiKey: 'o',
      openaiCompatibleBaseUrl: 'http://localhost:11434/v1',
    };
    const anthropic = createLanguageModel('anthropic:claude-sonnet-4-5', keys);
    const openai = createLanguageModel('openai:gpt-5', keys);
    const compatible = createLanguageModel('openai-compatible:qwen3-coder', keys);
    expect(typeof anthropic !== 'string' && [anthropic.provider, anthropic.modelId]).toEqual([
      'anthropic.messages',
      'claude-sonnet-4-5',
    ]);
    expect(typeof openai !== 'string' && openai.modelId).toBe('gpt-5');
    expect(typeof openai !== 'string' && openai.provider).toMatch(/^openai\./);
    expect(typeof compatible !== 'string' && [compatible.provider, compatible.modelId]).toEqual([
      'openai-compatible.chat',
      'qwen3-coder',
    ]);
  });

  test('a missing key says which setting to set', () => {
    expect(() => createLanguageModel('anthropic:claude-sonnet-4-5', {})).toThrow(/set ANTHROPIC_API_KEY/);
    expect(() => createLanguageModel('openai:gpt-5', { openaiApiKey: '  ' })).toThrow(/set OPENAI_API_KEY/);
    expect(() => createLanguageModel('openai-compatible:qwen3-coder', {})).toThrow(
      /set DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL/,
    );
  });

  test('a base URL that is not http(s) is refused, naming the setting', () => {
    expect(() =>
      createLanguageModel('openai-compatible:m', { openaiCompatibleBaseUrl: 'localhost:11434' }),
    ).toThrow(/DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL must be an http/);
    expect(() => createLanguageModel('openai:m', { openaiApiKey: 'k', openaiBaseUrl: 'ftp://x' })).toThrow(
      /DOCWRIGHT_OPENAI_BASE_URL/,
    );
  });

  test('anthropic goes to the given base URL with the given key, never the environment', async () => {
    server = await startScriptedOpenAIServer();
    const model = createLanguageModel('anthropic:claude-sonnet-4-5', {
      anthropicApiKey: 'sk-ant-passed-in',
      anthropicBaseUrl: server.baseUrl,
    });
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toThrow();
    expect(server.requests[0]?.path).toBe('/v1/messages');
    expect(server.requests[0]?.headers['x-api-key']).toBe('sk-ant-passed-in');
  });

  test('openai goes to the given base URL with the given key', async () => {
    server = await startScriptedOpenAIServer();
    const model = createLanguageModel('openai:gpt-5', {
      openaiApiKey: 'sk-openai-passed-in',
      openaiBaseUrl: `${server.baseUrl}/`,
    });
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toThrow();
    expect(server.requests[0]?.path).toBe('/v1/responses');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-openai-passed-in');
  });

  test('openai-compatible sends no Authorization header without a key', async () => {
    server = await startScriptedOpenAIServer([{ text: 'hello' }]);
    const model = createLanguageModel('openai-compatible:local', { openaiCompatibleBaseUrl: server.baseUrl });
    const { text } = await generateText({ model, prompt: 'hi', maxRetries: 0 });
    expect(text).toBe('hello');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    // Non-streamed requests get a plain JSON completion.
    expect(server.requests[0]?.body.stream).toBeUndefined();
  });
});
