import type { AiModelPrice, AiPrices, AiUsage } from '../../telephony/call-values'
import { invalid } from '../../errors'

/**
 * What a built-in agent costs: the tokens OpenAI reported on the call times the organization's
 * price for the model (USD per million tokens), nothing hard-coded. USD per million tokens times
 * tokens is millionths of a USD, so sums stay whole numbers.
 */

const PRICE_FIELDS = ['input_text', 'input_audio', 'input_cached', 'output_text', 'output_audio'] as const
const MAX_MODELS = 100
const PRICE_MAX = 100_000

/** Checks prices as the schema does, for callers that are not the HTTP API. */
export function checkAiPrices(prices: AiPrices | null): void {
  if (prices === null) return
  const models = Object.entries(prices)
  if (models.length > MAX_MODELS) throw invalid(`ai_prices holds at most ${MAX_MODELS} models.`, 'ai_prices')
  for (const [model, price] of models) {
    if (model.trim() === '') throw invalid('ai_prices: a model name must not be empty.', 'ai_prices')
    for (const field of PRICE_FIELDS) {
      const value = (price as unknown as Record<string, unknown>)?.[field]
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > PRICE_MAX) {
        throw invalid(`ai_prices.${model}.${field} must be USD per million tokens, 0-${PRICE_MAX}.`, `ai_prices.${model}.${field}`)
      }
    }
  }
}

/**
 * One call's cost in millionths of a USD. Cached input is priced at input_cached; usage reports
 * it only as a total, so it is taken from text and audio input in proportion to each.
 */
export function aiCostMicros(usage: AiUsage, price: AiModelPrice): number {
  const input = usage.input_text_tokens + usage.input_audio_tokens
  const cached = Math.min(usage.input_cached_tokens, input)
  const textShare = input > 0 ? usage.input_text_tokens / input : 0
  const text = usage.input_text_tokens - cached * textShare
  const audio = usage.input_audio_tokens - cached * (1 - textShare)
  return Math.round(
    text * price.input_text + audio * price.input_audio + cached * price.input_cached +
      usage.output_text_tokens * price.output_text + usage.output_audio_tokens * price.output_audio,
  )
}

/** AI minutes of one call: its seat time rounded up to the minute (0 when never seated). */
export const aiMinutesOf = (seconds: number | null): number => (seconds === null || seconds <= 0 ? 0 : Math.ceil(seconds / 60))

/** Two usages summed (a call's responses add up). */
export function addUsage(a: AiUsage | null, b: AiUsage): AiUsage {
  const n = (x: number | undefined) => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.round(x) : 0)
  return {
    input_tokens: n(a?.input_tokens) + n(b.input_tokens),
    output_tokens: n(a?.output_tokens) + n(b.output_tokens),
    input_text_tokens: n(a?.input_text_tokens) + n(b.input_text_tokens),
    input_audio_tokens: n(a?.input_audio_tokens) + n(b.input_audio_tokens),
    input_cached_tokens: n(a?.input_cached_tokens) + n(b.input_cached_tokens),
    output_text_tokens: n(a?.output_text_tokens) + n(b.output_text_tokens),
    output_audio_tokens: n(a?.output_audio_tokens) + n(b.output_audio_tokens),
  }
}
