// The page's side of the AG-UI demo: a client tool declared to the agent, and the agent's
// shared state shown as it changes.
const shell = document.querySelector('chat-shell');

await customElements.whenDefined('chat-shell');

shell.registerClientTool(
  'get_weather',
  async ({ city }) => ({ city, sky: 'clear', celsius: 21 }),
  {
    description: 'The current weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'The city' } },
      required: ['city'],
    },
  },
);

shell.addEventListener('chat.state', (event) => {
  document.getElementById('agent-state').textContent = JSON.stringify(event.detail.state);
});
