// The events the redactors hook by default, each way: every MCP message that carries text across
// the boundary (calls and their results, lists with their descriptions, notifications, the
// server's initialize instructions, sampling and LLM traffic), so a secret is caught both ways.
export const REDACTED_EVENTS = {
  request: [
    'tools/call', 'prompts/get', 'resources/read', 'resources/subscribe', 'completion/complete',
    'sampling/createMessage', 'elicitation/create', 'llm/completion',
    'notifications/message', 'notifications/progress', 'notifications/resources/updated', 'notifications/cancelled',
  ],
  response: [
    'initialize', 'tools/list', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list', 'resources/templates/list',
    'resources/read', 'completion/complete', 'sampling/createMessage', 'elicitation/create', 'roots/list', 'llm/completion',
  ],
} as const;
