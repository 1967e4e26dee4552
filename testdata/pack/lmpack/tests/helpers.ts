files priority render const first config whole import
await import category export markdown budget pack largest
options value largest value drop return report config
function files await type const export whole count
config files return tokens options await if largest
const string budget markdown value tree markdown if
markdown options tree files budget type markdown export
string await import return if export type if
drop import budget return tokens tokens config category
largest number await pack await drop const function
render pack budget tree whole if tree count
if pack files budget return string import count
first if largest value import drop function report
count export return files return files priority first
drop markdown return
