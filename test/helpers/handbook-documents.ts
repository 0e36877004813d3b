/** A team's handbook and expenses policy, the documents the answer tests ask about. */
export const HANDBOOK_DOCUMENTS = [
  {
    external_id: 'handbook',
    title: 'Employee handbook',
    url: 'https://intranet.example/handbook',
    text: [
      '# Holidays',
      'Every employee gets 25 days of paid holiday each year. Unused holiday days can be carried over, up to 5 days.',
      '# Office',
      'The office opens at 8am on weekdays. Parking permits are issued by facilities.',
    ].join('\n\n'),
  },
  {
    external_id: 'expenses',
    title: 'Expenses policy',
    text: 'Submit expense receipts within 30 days of purchase. Travel is booked through the travel desk.',
  },
];

/** Another team's handbook: it matches the holiday question better than the team's own does. */
export const RIVAL_HANDBOOK = {
  external_id: 'rival-handbook',
  title: 'Rival handbook',
  url: 'https://rival.example/handbook',
  text: 'Paid holiday days: every employee gets 40 days of paid holiday each year. Paid holiday days per employee each year: 40 days of paid holiday.',
};
