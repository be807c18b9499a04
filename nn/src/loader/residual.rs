//! The residual tower from a weights file (docs/lc0/network.md §5.3–5.4).

use crate::encoder::PLANES;
use crate::error::NetworkProblem;
use crate::layer::{check_len, conv, dense};
use crate::network::{ResidualBlock, ResidualTower, SqueezeExcitation};
use crate::proto;

/// The input convolution and the blocks, every size checked against the input's filter count.
pub fn tower(w: &proto::Weights) -> Result<ResidualTower, NetworkProblem> {
    let input = conv(w.input.as_ref(), PLANES, 3, "input")?;
    let filters = input.out_channels;
    let blocks = w
        .residual
        .iter()
        .enumerate()
        .map(|(i, block)| residual_block(block, filters, i))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ResidualTower { input, blocks })
}

fn residual_block(block: &proto::Residual, filters: usize, index: usize) -> Result<ResidualBlock, NetworkProblem> {
    let name = |part: &str| format!("residual[{index}].{part}");
    let conv1 = conv(block.conv1.as_ref(), filters, 3, &name("conv1"))?;
    check_len(&conv1.biases, filters, &name("conv1 output channels"))?;
    let conv2 = conv(block.conv2.as_ref(), filters, 3, &name("conv2"))?;
    check_len(&conv2.biases, filters, &name("conv2 output channels"))?;
    let se = match &block.se {
        None => None,
        Some(se) => {
            let fc1 = dense(se.w1.as_ref(), se.b1.as_ref(), filters, &name("se.1"))?;
            let fc2 = dense(se.w2.as_ref(), se.b2.as_ref(), fc1.outputs, &name("se.2"))?;
            check_len(&fc2.biases, 2 * filters, &name("se.b2"))?;
            Some(SqueezeExcitation { fc1, fc2 })
        }
    };
    Ok(ResidualBlock { conv1, conv2, se })
}
