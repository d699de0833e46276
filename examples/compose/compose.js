// The host's side of mentions and dictation (chatkit-js's option names): the entities an
// `@` offers, searched as the query is typed, and the microphone.
const people = [
  { id: 'usr_ada', title: 'Ada Lovelace', group: 'People', data: { email: 'ada@example.com' } },
  { id: 'usr_grace', title: 'Grace Hopper', group: 'People', data: { email: 'grace@example.com' } },
  { id: 'usr_linus', title: 'Linus Torvalds', group: 'People', data: { email: 'linus@example.com' } },
  { id: 'doc_spec', title: 'ChatKit spec', group: 'Documents', data: { url: '/spec' } },
  { id: 'doc_notes', title: 'Release notes', group: 'Documents', data: { url: '/notes' } },
];

await customElements.whenDefined('chat-shell');
document.querySelector('chat-shell').setOptions({
  entities: {
    onTagSearch: async (query) =>
      people.filter((p) => p.title.toLowerCase().includes(query.toLowerCase())),
  },
  composer: { dictation: { enabled: true } },
});
