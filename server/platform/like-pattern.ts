// LIKE and ILIKE patterns made of what someone typed (a search, a name): its own % and _, and the
// escape character, are taken literally.
const literally = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Matches values that contain `text`. */
export const containing = (text: string) => `%${literally(text)}%`;

/** Matches values that start with `text`. */
export const startingWith = (text: string) => `${literally(text)}%`;
