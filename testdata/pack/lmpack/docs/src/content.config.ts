await return priority budget string count const export
options drop import render export import options budget
whole report tokens category pack render tokens render
count render pack largest number type await type
if value if await options config number await
category budget value budget const
