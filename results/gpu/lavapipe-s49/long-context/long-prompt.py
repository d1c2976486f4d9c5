def f0(xs, k=0):
    total = 0
    for x in xs:
        if x % 2 == 0:
            total += x * k
    return total

def f1(xs, k=1):
    total = 0
    for x in xs:
        if x % 3 == 0:
            total += x * k
    return total

def f2(xs, k=2):
    total = 0
    for x in xs:
        if x % 4 == 0:
            total += x * k
    return total

def f3(xs, k=3):
    total = 0
    for x in xs:
        if x % 5 == 0:
            total += x * k
    return total

def f4(xs, k=4):
    total = 0
    for x in xs:
        if x % 6 == 0:
            total += x * k
    return total

def f5(xs, k=5):
    total = 0
    for x in xs:
        if x % 7 == 0:
            total += x * k
    return total

def f6(xs, k=6):
    total = 0
    for x in xs:
        if x % 8 == 0:
            total += x * k
    return total

def f7(xs, k=7):
    total = 0
    for x in xs:
        if x % 9 == 0:
            total += x * k
    return total

def f8(xs, k=8):
    total = 0
    for x in xs:
        if x % 10 == 0:
            total += x * k
    return total

def f9(xs, k=9):
    total = 0
    for x in xs:
        if x % 11 == 0:
            total += x * k
    return total

def f10(xs, k=10):
    total = 0
    for x in xs:
        if x % 12 == 0:
            total += x * k
    return total

def f11(xs, k=11):
    total = 0
    for x in xs:
        if x % 13 == 0:
            total += x * k
    return total

def f12(xs, k=12):
    total = 0
    for x in xs:
        if x % 14 == 0:
            total += x * k
    return total

def f13(xs, k=13):
    total = 0
    for x in xs:
        if x % 15 == 0:
            total += x * k
    return total

def f14(xs, k=14):
    total = 0
    for x in xs:
        if x % 16 == 0:
            total += x * k
    return total

def f15(xs, k=15):
    total = 0
    for x in xs:
        if x % 17 == 0:
            total += x * k
    return total

def f16(xs, k=16):
    total = 0
    for x in xs:
        if x % 18 == 0:
            total += x * k
    return total

def f17(xs, k=17):
    total = 0
    for x in xs:
        if x % 19 == 0:
            total += x * k
    return total

def f18(xs, k=18):
    total = 0
    for x in xs:
        if x % 20 == 0:
            total += x * k
    return total

def f19(xs, k=19):
    total = 0
    for x in xs:
        if x % 21 == 0:
            total += x * k
    return total

def f20(xs, k=20):
    total = 0
    for x in xs:
        if x % 22 == 0:
            total += x * k
    return total

def f21(xs, k=21):
    total = 0
    for x in xs:
        if x % 23 == 0:
            total += x * k
    return total

def f22(xs, k=22):
    total = 0
    for x in xs:
        if x % 24 == 0:
            total += x * k
    return total

def f23(xs, k=23):
    total = 0
    for x in xs:
        if x % 25 == 0:
            total += x * k
    return total

def f24(xs, k=24):
    total = 0
    for x in xs:
        if x % 26 == 0:
            total += x * k
    return total

def f25(xs, k=25):
    total = 0
    for x in xs:
        if x % 27 == 0:
            total += x * k
    return total

def f26(xs, k=26):
    total = 0
    for x in xs:
        if x % 28 == 0:
            total += x * k
    return total

def f27(xs, k=27):
    total = 0
    for x in xs:
        if x % 29 == 0:
            total += x * k
    return total

def f28(xs, k=28):
    total = 0
    for x in xs:
        if x % 30 == 0:
            total += x * k
    return total

def f29(xs, k=29):
    total = 0
    for x in xs:
        if x % 31 == 0:
            total += x * k
    return total

def f30(xs, k=30):
    total = 0
    for x in xs:
        if x % 32 == 0:
            total += x * k
    return total

def f31(xs, k=31):
    total = 0
    for x in xs:
        if x % 33 == 0:
            total += x * k
    return total

def f32(xs, k=32):
    total = 0
    for x in xs:
        if x % 34 == 0:
            total += x * k
    return total

def f33(xs, k=33):
    total = 0
    for x in xs:
        if x % 35 == 0:
            total += x * k
    return total

def f34(xs, k=34):
    total = 0
    for x in xs:
        if x % 36 == 0:
            total += x * k
    return total

def f35(xs, k=35):
    total = 0
    for x in xs:
        if x % 37 == 0:
            total += x * k
    return total

def f36(xs, k=36):
    total = 0
    for x in xs:
        if x % 38 == 0:
            total += x * k
    return total

def f37(xs, k=37):
    total = 0
    for x in xs:
        if x % 39 == 0:
            total += x * k
    return total

def f38(xs, k=38):
    total = 0
    for x in xs:
        if x % 40 == 0:
            total += x * k
    return total

def f39(xs, k=39):
    total = 0
    for x in xs:
        if x % 41 == 0:
            total += x * k
    return total

def main():
