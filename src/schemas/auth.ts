/** What the sign-in routes say, shared by the throttle that says it and the document that shows it. */
export const LOGIN_THROTTLE_MESSAGE = 'Too many failed sign-in attempts, please try again later.';
