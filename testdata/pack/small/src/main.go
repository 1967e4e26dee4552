package main

func main() { println("<&>") }
