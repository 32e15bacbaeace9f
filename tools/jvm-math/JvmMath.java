// Prints, for N random inputs (seed 42), the bits of Java's Math and
// StrictMath log, pow and exp, one input a line, as hexadecimal doubles:
//   p Math.log(p) StrictMath.log(p) x k Math.pow(x,k) StrictMath.pow(x,k)
//   e Math.exp(e) StrictMath.exp(e)
// then lines "sizing n p bitsMath bitsStrict" with Guava's optimalNumOfBits
// computed with each. `cargo run -p bloomlab-core --example jvm_math`
// reads this from standard input and compares it with bloomlab's (the
// platform's) functions. Usage: java JvmMath.java 1000000
import java.util.SplittableRandom;

public class JvmMath {
  static String h(double d) {
    return Long.toHexString(Double.doubleToRawLongBits(d));
  }

  public static void main(String[] args) {
    int n = Integer.parseInt(args[0]);
    SplittableRandom r = new SplittableRandom(42);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      // Half uniform in (0, 1), half log-uniform down to 1e-12.
      double p = (i % 2 == 0) ? r.nextDouble() : Math.pow(10, -r.nextDouble() * 12);
      double x = r.nextDouble();
      int k = 1 + r.nextInt(30);
      double e = -r.nextDouble() * 20;
      if (p == 0) {
        continue;
      }
      sb.append(h(p)).append(' ').append(h(Math.log(p))).append(' ')
          .append(h(StrictMath.log(p))).append(' ').append(h(x)).append(' ')
          .append(k).append(' ').append(h(Math.pow(x, k))).append(' ')
          .append(h(StrictMath.pow(x, k))).append(' ').append(h(e)).append(' ')
          .append(h(Math.exp(e))).append(' ').append(h(StrictMath.exp(e)))
          .append('\n');
    }
    // Guava's optimalNumOfBits, with Math.log (what Guava calls) and with
    // StrictMath.log.
    long[][] cases = {{278674391L, 691}, {1000000L, 10}, {100000L, 30}};
    for (long[] c : cases) {
      double pp = c[1] / 1000.0;
      long bm = (long) (-c[0] * Math.log(pp) / (Math.log(2) * Math.log(2)));
      long bs = (long) (-c[0] * StrictMath.log(pp) / (StrictMath.log(2) * StrictMath.log(2)));
      sb.append("sizing ").append(c[0]).append(' ').append(h(pp)).append(' ')
          .append(bm).append(' ').append(bs).append('\n');
    }
    System.out.print(sb);
  }
}
