//! How often Java's `Math` functions, which Guava and hutool call, differ
//! in the last bit from the ones bloomlab uses (the platform's `ln`,
//! `powf` and `exp`: glibc's on Linux), and from Java's `StrictMath`.
//!
//! Reads the output of `tools/jvm-math/JvmMath.java` on standard input:
//!
//! ```sh
//! java tools/jvm-math/JvmMath.java 1000000 \
//!     | cargo run --release -p bloomlab-core --example jvm_math
//! ```

use std::error::Error;
use std::io::BufRead;

use bloomlab_core::sizing::guava_optimal_num_of_bits;

fn hex(s: &str) -> Result<f64, Box<dyn Error>> {
    Ok(f64::from_bits(u64::from_str_radix(s, 16)?))
}

fn main() -> Result<(), Box<dyn Error>> {
    // Per function: inputs, Math != StrictMath, bloomlab != Math,
    // bloomlab != StrictMath.
    let mut counts = [[0u64; 4]; 3];
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let w: Vec<&str> = line.split(' ').collect();
        if let ["sizing", n, p, math, strict] = w[..] {
            let (n, p): (i64, f64) = (n.parse()?, hex(p)?);
            println!(
                "Guava optimalNumOfBits({n}, {p}): Math.log {math}, \
                 StrictMath.log {strict}, bloomlab {}",
                guava_optimal_num_of_bits(n, p)
            );
            continue;
        }
        let [p, lm, ls, x, k, pm, ps, e, em, es] = w[..] else {
            return Err(format!("not a JvmMath line: {line:?}").into());
        };
        let k: u32 = k.parse()?;
        // Guava's expectedFpp is Math.pow(bitCount / bitSize, k), and
        // bloomlab's `theory::guava_expected_fpp` this powf.
        let x = hex(x)?;
        let ours = [hex(p)?.ln(), x.powf(f64::from(k)), hex(e)?.exp()];
        let java = [(lm, ls), (pm, ps), (em, es)];
        for ((c, ours), (math, strict)) in
            counts.iter_mut().zip(ours).zip(java)
        {
            let (math, strict) = (hex(math)?, hex(strict)?);
            c[0] += 1;
            c[1] += u64::from(math.to_bits() != strict.to_bits());
            c[2] += u64::from(ours.to_bits() != math.to_bits());
            c[3] += u64::from(ours.to_bits() != strict.to_bits());
        }
    }
    println!(
        "function  inputs  Math!=StrictMath  bloomlab!=Math  bloomlab!=StrictMath"
    );
    for (name, c) in ["log", "pow", "exp"].iter().zip(counts) {
        println!("{name:<8}  {}  {}  {}  {}", c[0], c[1], c[2], c[3]);
    }
    Ok(())
}
