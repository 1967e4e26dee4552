tokens budget export whole options value import type
largest export count export priority await import render
export config markdown markdown number tree import report
tree priority value options import files tree markdown
report largest priority return first export pack count
const value pack options config string tokens return
drop options return files render whole whole whole
value if number tree pack markdown return files
largest budget count first const priority category value
return markdown string tokens tokens options category whole
if pack function return first config if budget
options function string first files largest pack export
tokens whole tree string options value return drop
await type count budget pack type budget return
whole function return budget function tree budget markdown
if category return render markdown number number if
options budget markdown export render number tree tree
count return const count function type
