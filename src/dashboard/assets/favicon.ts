/** The dashboard's icon: two arrows in a circle (sync). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="#2358c7"/><path d="M9 14a7 7 0 0 1 12-4l2-2v6h-6l2-2a4.5 4.5 0 0 0-7.5 2zM23 18a7 7 0 0 1-12 4l-2 2v-6h6l-2 2a4.5 4.5 0 0 0 7.5-2z" fill="#fff"/></svg>`;
