def add(a, b):
    return a +

print(add(1, 2))
