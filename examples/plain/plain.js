// Listens to the element's events the way a host page would (no framework needed).
const chat = document.getElementById('chat');
const list = document.getElementById('events');
for (const name of ['chat.ready', 'chat.message.sent', 'chat.thread.created', 'chat.thread.change',
  'chat.response.start', 'chat.response.end', 'chat.thread.done', 'chat.error', 'chat.notice',
  'chat.effect', 'chat.action']) {
  chat.addEventListener(name, (event) => {
    const item = document.createElement('li');
    item.textContent = `${name} ${JSON.stringify(event.detail)}`;
    list.append(item);
  });
}
