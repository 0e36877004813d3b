/** Documents the MCP and OAuth tests upload: one the whole team may open, one only its uploader. */
export const SHARED_DOCUMENT = {
  external_id: 'espresso-care',
  title: 'Espresso machine care',
  text: 'Descale the espresso machine every month with citric acid. Rinse the tank twice after descaling.',
};

export const PRIVATE_DOCUMENT = {
  external_id: 'salary-review',
  title: 'Salary review notes',
  text: 'The zanzibar bonus pool for the salary review is forty thousand euros and stays confidential.',
  visibility: 'private',
};
