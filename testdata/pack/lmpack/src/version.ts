type number value priority function report drop value
const import type files export report return priority
budget
