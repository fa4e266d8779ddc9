import type { AgentHooks, SeatAgent } from '../media-stream/contract'
import type { AgentSocket } from '../media-stream/seat-session'
import { openRealtimeAgent, type RealtimeAgentDeps } from '../realtime/realtime-agent'

/**
 * How the Twilio carrier's relay reaches a seat's agent (docs/agents.md): a `stream` agent is a
 * socket at its URL; `openai_realtime` is the service's own agent, which speaks the same Media
 * Streams protocol to the relay and OpenAI's Realtime protocol behind it.
 */
export function seatAgentConnector(realtime: RealtimeAgentDeps = {}): (agent: SeatAgent, hooks: AgentHooks) => AgentSocket {
  return (agent, hooks) => agent.kind === 'openai_realtime'
    ? openRealtimeAgent(agent, hooks, realtime)
    : new WebSocket(agent.url) as unknown as AgentSocket
}
