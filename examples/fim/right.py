


print(add(1, 2))
