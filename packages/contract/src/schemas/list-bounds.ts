/** Bounds on list sizes, far above any valid request, so absurd bodies cost nothing to refuse. */
export const MAX_LISTED = 1000;
