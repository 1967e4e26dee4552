number export largest markdown const markdown largest pack
await budget render pack markdown tokens type await
report return tokens export import if type count
report if first tokens value config priority largest
priority import number tree options budget render type
value category value whole tokens priority options largest
value largest string priority value if if config
config budget render import number first
