import { describe, expect, it } from 'vitest';
import { carHighway, nodeControl, wayLanes, wayOneway } from './car-way.ts';

describe('carHighway', () => {
  it('keeps drivable classes and drops footways, tracks and closed roads', () => {
    expect(carHighway({ highway: 'residential' })).toBe('residential');
    expect(carHighway({ highway: 'motorway_link' })).toBe('motorway_link');
    expect(carHighway({ highway: 'footway' })).toBeNull();
    expect(carHighway({ highway: 'track' })).toBeNull();
    expect(carHighway({ highway: 'construction' })).toBeNull();
    expect(carHighway({ highway: 'service', access: 'private' })).toBeNull();
    expect(carHighway({ highway: 'service', access: 'no', motor_vehicle: 'yes' })).toBe('service');
    expect(carHighway({ highway: 'residential', motorcar: 'no' })).toBeNull();
    expect(carHighway({ highway: 'pedestrian' })).toBeNull();
    expect(carHighway({ highway: 'residential', area: 'yes' })).toBeNull();
    expect(carHighway(undefined)).toBeNull();
  });
});

describe('wayOneway', () => {
  it('reads explicit and implied one-way rules', () => {
    expect(wayOneway({ highway: 'residential', oneway: 'yes' })).toBe('forward');
    expect(wayOneway({ highway: 'residential', oneway: '1' })).toBe('forward');
    expect(wayOneway({ highway: 'residential', oneway: '-1' })).toBe('backward');
    expect(wayOneway({ highway: 'residential', oneway: 'no' })).toBe('both');
    expect(wayOneway({ highway: 'primary', junction: 'roundabout' })).toBe('forward');
    expect(wayOneway({ highway: 'primary', junction: 'roundabout', oneway: 'no' })).toBe('both');
    expect(wayOneway({ highway: 'motorway' })).toBe('forward');
    expect(wayOneway({ highway: 'residential' })).toBe('both');
    expect(wayOneway({ highway: 'residential', oneway: 'reversible' })).toBe('both');
  });
});

describe('node controls and lanes', () => {
  it('recognises signals, stop and give-way signs', () => {
    expect(nodeControl({ highway: 'traffic_signals' })).toBe('signals');
    expect(nodeControl({ highway: 'stop' })).toBe('stop');
    expect(nodeControl({ highway: 'give_way' })).toBe('give_way');
    expect(nodeControl({ highway: 'crossing' })).toBeNull();
  });

  it('reads lanes', () => {
    expect(wayLanes({ lanes: '3' })).toBe(3);
    expect(wayLanes({ lanes: 'many' })).toBeNull();
    expect(wayLanes({})).toBeNull();
  });
});
