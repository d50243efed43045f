import { area } from "./shapes";

console.log(area(2, 3));
console.log(area(4, 5));
