// Filled in by the single sign-on work (issue 35).
export {};
